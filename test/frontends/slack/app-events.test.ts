/**
 * The Slack app's events, on the real chat core: the App Home tab published with what
 * concerns the user (their channels as Slack lists them), its Remove buttons acting from
 * the user's DM with the bot, and the events that say a channel no longer takes the
 * bot's messages pausing that channel's subscriptions, once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeAction } from '../../../src/channels/slack/actions.js';
import { FAKE_CHANNELS } from '../../fakes/slack.js';
import { blockActions, slackEvents, slashCommand } from '../../fakes/slack-payloads.js';
import { type AppUnderTest, startAppUnderTest } from './app-setup.js';

let t: AppUnderTest;

afterEach(async () => {
  await t?.close();
});

/** Subscribes `channel` to `pipeline` with `/pipewatch`, as `user` typed it there. */
async function subscribe(channel: string, pipeline: string, user = 'U0ALICE'): Promise<void> {
  const res = await t.send.command(
    slashCommand(t.fake, { text: `subscribe ${pipeline}`, channel, user }),
  );
  expect(JSON.parse(res.body).response_type).toBe('in_channel');
}

/** Each subscription's channel and why it is paused (null while it is not). */
const pauses = () => t.store.subscriptions.all().map((s) => [s.channel, s.paused_reason]);

const home = (user: string) => JSON.stringify(t.fake.views.get(user)?.blocks);

/** The values of the Remove buttons on the home view of `user`. */
function removeButtons(user: string): string[] {
  type Block = { accessory?: { action_id: string; value: string } };
  const blocks = (t.fake.views.get(user)?.blocks ?? []) as Block[];
  return blocks.flatMap((b) =>
    b.accessory?.action_id === 'pipewatch_remove' ? [b.accessory.value] : [],
  );
}

describe('App Home', () => {
  it('publishes the home view of the user, with the subscriptions of the channels they are in', async () => {
    t = await startAppUnderTest({
      fake: { channels: [...FAKE_CHANNELS, { id: 'C0BOB', name: 'bobs', members: ['W0BOB'] }] },
    });
    await subscribe('C0GAS', 'transco');
    await subscribe('C0OPS', 'tgp');
    await subscribe('C0BOB', 'texas-eastern', 'W0BOB');
    const res = await t.send.event(slackEvents.appHomeOpened(t.fake, 'U0ALICE'));
    expect(res.status).toBe(200);
    await expect.poll(() => t.fake.publishes.length).toBe(1);
    expect(t.fake.publishes[0]).toMatchObject({ user: 'U0ALICE', view: { type: 'home' } });
    expect(home('U0ALICE')).toContain('Subscriptions of C0GAS');
    expect(home('U0ALICE')).toContain('Subscriptions of C0OPS');
    expect(home('U0ALICE')).not.toContain('C0BOB');
    const asked = t.fake.calls.filter((c) => c.method === 'users.conversations');
    expect(asked).toMatchObject([{ status: 200 }]);
  });

  it("a Remove on the home view acts on the user's reminders and on the channels they are in, and republishes the view", async () => {
    t = await startAppUnderTest();
    await subscribe('C0GAS', 'transco');
    await t.send.command(slashCommand(t.fake, { text: 'mute tgp for 4h' }));
    await t.send.command(slashCommand(t.fake, { text: 'remind texas-eastern' }));
    await t.send.event(slackEvents.appHomeOpened(t.fake, 'U0ALICE'));
    await expect.poll(() => t.fake.publishes.length).toBe(1);
    const reminder = encodeAction({ kind: 'remove', what: 'subscription', id: 2 });
    const silence = encodeAction({ kind: 'remove', what: 'silence', id: 1 });
    const channelSub = encodeAction({ kind: 'remove', what: 'subscription', id: 1 });
    expect(removeButtons('U0ALICE')).toEqual([reminder.value, silence.value, channelSub.value]);
    for (const [value, publishes] of [
      [reminder.value, 2],
      [silence.value, 3],
      [channelSub.value, 4],
    ] as const) {
      await t.send.interactive(
        blockActions(t.fake, { source: { home: true }, actionId: 'pipewatch_remove', value }),
      );
      await expect.poll(() => t.fake.publishes.length).toBe(publishes);
    }
    expect(t.store.subscriptions.all()).toEqual([]);
    expect(t.store.silences.active(t.store.silences.get(1)!.starts_at)).toEqual([]);
    expect(home('U0ALICE')).not.toContain('texas-eastern');
    expect(t.fake.calls.filter((c) => c.method === 'conversations.open')).toHaveLength(1);
  });

  it('a Remove on the home view does not reach a channel the user has left since', async () => {
    t = await startAppUnderTest();
    await subscribe('C0OPS', 'transco');
    await t.send.event(slackEvents.appHomeOpened(t.fake, 'U0ALICE'));
    await expect.poll(() => t.fake.publishes.length).toBe(1);
    const sub = encodeAction({ kind: 'remove', what: 'subscription', id: 1 });
    expect(removeButtons('U0ALICE')).toEqual([sub.value]);
    const click = blockActions(t.fake, {
      source: { home: true },
      actionId: 'pipewatch_remove',
      value: sub.value,
    });
    t.fake.channels.get('C0OPS')!.members = [];
    await t.send.interactive(click);
    await expect.poll(() => t.fake.publishes.length).toBe(2);
    expect(t.store.subscriptions.all()).toHaveLength(1);
  });
});

describe('channels that are gone', () => {
  it('channel_archive pauses the channel through the core', async () => {
    t = await startAppUnderTest();
    await subscribe('C0GAS', 'transco');
    await subscribe('C0OPS', 'tgp');
    const res = await t.send.event(slackEvents.channelArchive(t.fake, 'C0GAS'));
    expect(res.status).toBe(200);
    await expect.poll(pauses).toEqual([
      ['slack:C0GAS', 'the channel was archived'],
      ['slack:C0OPS', null],
    ]);
    expect((await t.engine.rules()).map((r) => r.name)).toEqual(['sub-2']);
  });

  it('member_left_channel counts only when the bot itself left, and once', async () => {
    t = await startAppUnderTest();
    for (const [channel, pipeline] of [
      ['C0GAS', 'transco'],
      ['C0OPS', 'tgp'],
      ['C0OUT', 'texas-eastern'],
    ] as const)
      await subscribe(channel, pipeline);
    await t.send.event(slackEvents.memberLeftChannel(t.fake, 'C0GAS', 'U0ALICE'));
    // An event heard after it shows it was passed over.
    await t.send.event(slackEvents.channelDeleted(t.fake, 'C0OPS'));
    await expect.poll(pauses).toEqual([
      ['slack:C0GAS', null],
      ['slack:C0OPS', 'the channel was deleted'],
      ['slack:C0OUT', null],
    ]);
    await t.send.event(slackEvents.memberLeftChannel(t.fake, 'C0GAS'));
    await t.send.event(slackEvents.groupLeft(t.fake, 'C0GAS'));
    await t.send.event(slackEvents.channelArchive(t.fake, 'C0OUT'));
    await expect.poll(pauses).toEqual([
      ['slack:C0GAS', 'pipewatch was removed from the channel'],
      ['slack:C0OPS', 'the channel was deleted'],
      ['slack:C0OUT', 'the channel was archived'],
    ]);
    const told = t.lines.filter((l) => /Slack channel C0\w+: /.test(l));
    expect(told.map((l) => /Slack channel (C0\w+)/.exec(l)![1])).toEqual([
      'C0OPS',
      'C0GAS',
      'C0OUT',
    ]);
  });
});
