/**
 * The Slack channels against the fake: a post refused because the channel is gone or the
 * bot is not in it is reported through `onChannelGone` and still fails as before; and
 * with the app running, alerts to channels carry buttons while DMs do not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryErrorCode } from '../../../src/channels/types.js';
import { failure, noticeAlert } from '../../fakes/alerts.js';
import { startSlackFake } from '../../fakes/slack.js';
import { SENT_AT, sampleAlerts } from '../payload-samples.js';
import { capturedLogger, channelsFor, sendContext } from './support.js';

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(interactive = false) {
  const fake = await startSlackFake({ rate: { perSecond: 100, burst: 10 } });
  const gone: Array<[string, string]> = [];
  const { logger, lines } = capturedLogger();
  let fail = false;
  const channels = channelsFor(
    fake,
    {
      timeoutMs: 2000,
      interactive,
      onChannelGone: (channel, reason) => {
        gone.push([channel, reason]);
        if (fail) throw new Error('the store is closed');
      },
    },
    { logger },
  );
  closers.push(
    () => fake.close(),
    () => channels.slack.close!(),
  );
  return { fake, gone, lines, ...channels, failHook: () => (fail = true) };
}

describe('onChannelGone', () => {
  it('is told when the channel is archived, unknown, or the bot is not in it', async () => {
    const { slack, gone } = await setup();
    const cases: Array<[string, string]> = [
      ['#old', DeliveryErrorCode.NotFound],
      ['#nowhere', DeliveryErrorCode.NotFound],
      ['#outside', DeliveryErrorCode.Forbidden],
    ];
    for (const [channel, code] of cases) {
      const error = await failure(
        slack.send({ kind: 'slack', channel }, [noticeAlert()], sendContext()),
      );
      expect(error.code).toBe(code);
      expect(error.permanent).toBe(true);
    }
    expect(gone).toEqual([
      ['#old', 'the channel was archived (is_archived)'],
      ['#nowhere', 'the channel was not found (channel_not_found)'],
      ['#outside', 'pipewatch is not in the channel (not_in_channel)'],
    ]);
  });

  it('is not told of other failures', async () => {
    const { slack, fake, gone } = await setup();
    fake.inject({ method: 'chat.postMessage', error: 'msg_too_long' });
    fake.inject({ method: 'chat.postMessage', status: 500 });
    await failure(slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], sendContext()));
    await failure(slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], sendContext()));
    expect(gone).toEqual([]);
  });

  it('failing itself changes nothing of the send, and says so in the log', async () => {
    const { slack, gone, lines, failHook } = await setup();
    failHook();
    const error = await failure(
      slack.send({ kind: 'slack', channel: '#old' }, [noticeAlert()], sendContext()),
    );
    expect(error.reason).toBe('slack: is_archived (#old)');
    expect(gone).toHaveLength(1);
    expect(lines.some((l) => l.includes('could not report Slack channel #old gone'))).toBe(true);
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
