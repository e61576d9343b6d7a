/**
 * The Slack channels against the fake, wired to the real chat core as the daemon wires
 * them: a post refused because the channel is gone or the bot is not in it pauses that
 * channel's subscriptions through `onChannelGone`, and still fails as before; and with
 * the app running, alerts to channels carry buttons while DMs do not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryErrorCode } from '../../../src/channels/types.js';
import { failure, noticeAlert } from '../../fakes/alerts.js';
import { startSlackFake } from '../../fakes/slack.js';
import { capturedLogger } from '../../support/captured-logger.js';
import { startChatCore } from '../../support/chat-core.js';
import { SENT_AT, sampleAlerts } from '../payload-samples.js';
import { channelsFor, sendContext } from './support.js';

const closers: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(interactive = false) {
  const fake = await startSlackFake({ rate: { perSecond: 100, burst: 10 } });
  const { logger, lines } = capturedLogger();
  const chat = startChatCore({ logger });
  // The pauses told of, which a send does not wait for: read once they are done.
  const pausing: Promise<unknown>[] = [];
  const channels = channelsFor(
    fake,
    {
      timeoutMs: 2000,
      interactive,
      onChannelGone: (channel, reason) => {
        const paused = chat.core.channelGone('slack', channel, reason);
        pausing.push(paused);
        return paused;
      },
    },
    { logger },
  );
  closers.push(
    () => fake.close(),
    () => channels.slack.close!(),
    () => chat.close(),
  );
  /** Subscribes `channel` from chat, as someone there typed it. */
  const subscribe = (channel: string) =>
    chat.core.command({ platform: 'slack', channel, user: 'U0ALICE' }, 'subscribe transco');
  /** Each subscription's channel and why it is paused (null while it is not). */
  const pauses = async () => {
    await Promise.allSettled(pausing);
    return chat.store.subscriptions.all().map((r) => [r.channel, r.paused_reason]);
  };
  return { fake, lines, chat, subscribe, pauses, ...channels };
}

describe('a channel gone, found by a send', () => {
  it('pauses the subscriptions of a channel archived, unknown, or without the bot', async () => {
    const { slack, subscribe, pauses } = await setup();
    const cases: Array<[string, string]> = [
      ['C0OLD', DeliveryErrorCode.NotFound],
      ['C0NOWHERE', DeliveryErrorCode.NotFound],
      ['C0OUT', DeliveryErrorCode.Forbidden],
    ];
    for (const [channel] of [...cases, ['C0GAS']]) await subscribe(channel!);
    for (const [channel, code] of cases) {
      const error = await failure(
        slack.send({ kind: 'slack', channel }, [noticeAlert()], sendContext()),
      );
      expect(error.code).toBe(code);
      expect(error.permanent).toBe(true);
    }
    expect(await pauses()).toEqual([
      ['slack:C0OLD', 'the channel was archived (is_archived)'],
      ['slack:C0NOWHERE', 'the channel was not found (channel_not_found)'],
      ['slack:C0OUT', 'pipewatch is not in the channel (not_in_channel)'],
      ['slack:C0GAS', null],
    ]);
  });

  it('pauses nothing on other failures', async () => {
    const { slack, fake, subscribe, pauses } = await setup();
    await subscribe('C0GAS');
    fake.inject({ method: 'chat.postMessage', error: 'msg_too_long' });
    fake.inject({ method: 'chat.postMessage', status: 500 });
    await failure(slack.send({ kind: 'slack', channel: 'C0GAS' }, [noticeAlert()], sendContext()));
    await failure(slack.send({ kind: 'slack', channel: 'C0GAS' }, [noticeAlert()], sendContext()));
    expect(await pauses()).toEqual([['slack:C0GAS', null]]);
  });

  it('a pause that fails changes nothing of the send, and says so in the log', async () => {
    const { slack, chat, lines, subscribe } = await setup();
    await subscribe('C0OLD');
    chat.store.close();
    const error = await failure(
      slack.send({ kind: 'slack', channel: 'C0OLD' }, [noticeAlert()], sendContext()),
    );
    expect(error.reason).toBe('slack: is_archived (C0OLD)');
    expect(error.permanent).toBe(true);
    expect(lines.some((l) => l.includes('could not report Slack channel C0OLD gone'))).toBe(true);
  });
});

describe('interactive', () => {
  it('puts buttons on alerts to channels, none on DMs', async () => {
    const { fake, slack, slack_dm } = await setup(true);
    const alerts = sampleAlerts('operations-schema-drift', 'slack:#gas');
    await slack.send({ kind: 'slack', channel: '#gas' }, alerts, {
      ...sendContext(),
      now: SENT_AT,
    });
    await slack_dm.send({ kind: 'slack_dm', user: 'U0ALICE' }, alerts, sendContext());
    const [channel, dm] = fake.posts;
    const ids = (m: typeof channel) => m!.blocks.map((b) => (b as { block_id?: string }).block_id);
    expect(ids(channel)).toContain('pipewatch-actions');
    expect(ids(dm)).not.toContain('pipewatch-actions');
  });

  it('is off unless asked', async () => {
    const { fake, slack } = await setup(false);
    await slack.send(
      { kind: 'slack', channel: '#gas' },
      sampleAlerts('operations-schema-drift', 'slack:#gas'),
      sendContext(),
    );
    expect(JSON.stringify(fake.posts[0]!.blocks)).not.toContain('pipewatch_ack');
  });
});
