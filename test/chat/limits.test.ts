/**
 * What one person and one workspace may store from chat, on the real chat core and
 * database: reminders and silences per person and per workspace, subscriptions per
 * workspace beyond the per-channel limit. Each refusal names the limit and the variable
 * that raises it and stores nothing; a "Remind me" clicked again sets nothing more; with
 * admins set, a mute typed in a direct message is checked as in a channel.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { plainHints } from '../../src/chat/hints.js';
import type { ChatLimits } from '../../src/chat/limits.js';
import type { ChatCaller } from '../../src/chat/types.js';
import { makeNotice } from '../fakes/notice.js';
import { CORE_NOW, type CoreUnderTest, startChatCore } from '../support/chat-core.js';

let started: CoreUnderTest | undefined;
afterEach(() => started?.close());

function setup(limits: Partial<ChatLimits>, admins: string[] = []) {
  started = startChatCore({ limits, admins });
  return started;
}

const alice: ChatCaller = {
  platform: 'slack',
  workspace: 'T0GAS',
  channel: 'C0GAS',
  channelName: 'gas',
  user: 'U0ALICE',
};
const bob: ChatCaller = { ...alice, user: 'U0BOB' };
const carol: ChatCaller = { ...alice, user: 'U0CAROL' };
/** Someone of another workspace. */
const dave: ChatCaller = { ...alice, workspace: 'T0OIL', channel: 'C0OIL', user: 'U0DAVE' };

describe('reminders', () => {
  it('one person has at most so many; the next is refused naming the variable, and others may still', async () => {
    const { core, store } = setup({ remindersPerUser: 2 });
    expect((await core.command(alice, 'remind transco')).reply.text).toMatch(
      /You will get reminders/,
    );
    expect((await core.command(alice, 'remind tgp')).reply.text).toMatch(/You will get reminders/);
    const refused = (await core.command(alice, 'remind texas-eastern')).reply;
    expect(refused.private).toBe(true);
    expect(plainHints(refused.text)).toBe(
      'Not set: you have 2 reminders, the most one person may have (PIPEWATCH_CHAT_REMINDERS_PER_USER raises it, for whoever runs pipewatch). Nothing was stored. Remove some with `unsubscribe ID` (`list` shows them).',
    );
    expect(store.subscriptions.byTarget('slack_dm:U0ALICE')).toHaveLength(2);
    expect((await core.command(bob, 'remind texas-eastern')).reply.text).toMatch(
      /You will get reminders/,
    );
    // Removing one makes room again.
    await core.command(alice, 'unsubscribe 1');
    expect((await core.command(alice, 'remind texas-eastern')).reply.text).toMatch(/reminders/);
  });

  it('a Remind me whose deadline has passed no longer counts', async () => {
    const { core, store, clock } = setup({ remindersPerUser: 1 });
    store.notices.upsert(
      makeNotice({ id: 7, response_at: '2026-11-21T15:00:00Z' }),
      CORE_NOW,
      false,
    );
    expect((await core.action(alice, { kind: 'remind', noticeId: 7 })).reply?.text).toMatch(
      /You will get a direct message/,
    );
    expect((await core.command(alice, 'remind transco')).reply.text).toMatch(
      /PIPEWATCH_CHAT_REMINDERS_PER_USER/,
    );
    clock.advance(2 * 86_400_000);
    expect((await core.command(alice, 'remind transco')).reply.text).toMatch(
      /You will get reminders/,
    );
  });

  it('a workspace has at most so many, whoever set them; another workspace is not held back', async () => {
    const { core, store } = setup({ remindersPerWorkspace: 2 });
    await core.command(alice, 'remind transco');
    await core.command(bob, 'remind transco');
    expect(plainHints((await core.command(carol, 'remind transco')).reply.text)).toBe(
      'Not set: this Slack workspace has 2 reminders, the most one workspace may have (PIPEWATCH_CHAT_REMINDERS_PER_WORKSPACE raises it, for whoever runs pipewatch). Nothing was stored. Remove some with `unsubscribe ID` (`list` shows them).',
    );
    // A click on Remind me counts too.
    store.notices.upsert(
      makeNotice({ id: 7, response_at: '2026-11-21T15:00:00Z' }),
      CORE_NOW,
      false,
    );
    expect((await core.action(carol, { kind: 'remind', noticeId: 7 })).reply?.text).toMatch(
      /PIPEWATCH_CHAT_REMINDERS_PER_WORKSPACE/,
    );
    expect((await core.command(dave, 'remind transco')).reply.text).toMatch(
      /You will get reminders/,
    );
    expect(store.subscriptions.all()).toHaveLength(3);
  });
});

describe('Remind me clicked again on the same notice', () => {
  it('says the reminder is already set, stores nothing and sends no second message', async () => {
    const { core, store, engine } = setup({});
    // Due in an hour: the 2 h reminder goes out at the engine's next pass.
    store.notices.upsert(
      makeNotice({ id: 7, identifier: '26-0412', response_at: '2026-11-20T16:00:00Z' }),
      CORE_NOW,
      false,
    );
    expect((await core.action(bob, { kind: 'remind', noticeId: 7 })).reply?.text).toMatch(
      /You will get a direct message before 26-0412's response deadline/,
    );
    await engine.runReminders();
    expect(store.outbox.counts().pending).toBe(1);
    for (let click = 0; click < 4; click++) {
      const again = (await core.action(bob, { kind: 'remind', noticeId: 7 })).reply!;
      await engine.runReminders();
      expect(again.private).toBe(true);
      expect(plainHints(again.text)).toBe(
        "You already have a reminder before 26-0412's response deadline (2026-11-20T16:00:00Z) (#1); nothing more was set. `unsubscribe 1` removes it.",
      );
    }
    expect(store.subscriptions.all()).toHaveLength(1);
    expect(store.outbox.counts().pending).toBe(1);
    // Someone else's click is theirs.
    await core.action(carol, { kind: 'remind', noticeId: 7 });
    expect(store.subscriptions.all()).toHaveLength(2);
  });
});

describe('silences', () => {
  it('one person has at most so many in force; one that ended makes room', async () => {
    const { core, store } = setup({ silencesPerUser: 1 });
    expect((await core.command(alice, 'mute transco for 4h')).reply.text).toMatch(/muted transco/);
    const refused = (await core.command(alice, 'mute tgp for 4h')).reply;
    expect(refused.private).toBe(true);
    expect(plainHints(refused.text)).toBe(
      'Not muted: you have 1 silence in force, the most one person may have (PIPEWATCH_CHAT_SILENCES_PER_USER raises it, for whoever runs pipewatch). Nothing was stored; `unmute ID` ends one (`list` shows them).',
    );
    // The Mute button is held to it too.
    expect(
      (await core.action(alice, { kind: 'mute', pipeline: 'tgp', forMs: 3_600_000 })).reply?.text,
    ).toMatch(/PIPEWATCH_CHAT_SILENCES_PER_USER/);
    expect(store.silences.list()).toHaveLength(1);
    expect((await core.command(bob, 'mute tgp for 4h')).reply.text).toMatch(/muted tgp/);
    await core.command(alice, 'unmute 1');
    expect((await core.command(alice, 'mute tgp for 4h')).reply.text).toMatch(/muted tgp/);
  });

  it('a workspace has at most so many in force, over all its channels', async () => {
    const { core, store } = setup({ silencesPerWorkspace: 2 });
    await core.command(alice, 'mute transco for 1h');
    await core.command({ ...bob, channel: 'C0OPS', channelName: 'ops' }, 'mute transco for 1h');
    expect(
      (await core.command({ ...carol, channel: 'C0THIRD', channelName: 'third' }, 'mute for 1h'))
        .reply.text,
    ).toMatch(
      /^Not muted: this Slack workspace has 2 silences in force, the most one workspace may have \(PIPEWATCH_CHAT_SILENCES_PER_WORKSPACE raises it/,
    );
    expect((await core.command(dave, 'mute for 1h')).reply.text).toMatch(/muted every pipeline/);
    expect(store.silences.list()).toHaveLength(3);
  });
});

describe('subscriptions of a workspace', () => {
  it('are bounded over all its channels, beyond the limit of each channel', async () => {
    const { core, store } = setup({ subscriptionsPerWorkspace: 3 });
    for (const channel of ['C0CHAN01', 'C0CHAN02', 'C0CHAN03'])
      expect((await core.command({ ...alice, channel }, 'subscribe transco')).reply.text).toMatch(
        /subscribed this channel/,
      );
    const refused = (await core.command({ ...alice, channel: 'C0CHAN04' }, 'subscribe transco'))
      .reply;
    expect(refused.private).toBe(true);
    expect(plainHints(refused.text)).toBe(
      'Not subscribed: this Slack workspace has 3 subscriptions, the most one workspace may have (PIPEWATCH_CHAT_SUBSCRIPTIONS_PER_WORKSPACE raises it, for whoever runs pipewatch). Nothing was stored. Remove some with `unsubscribe ID` (`list` shows them).',
    );
    // Reminders are not channel subscriptions; another workspace has its own.
    expect((await core.command(alice, 'remind transco')).reply.text).toMatch(
      /You will get reminders/,
    );
    expect((await core.command(dave, 'subscribe transco')).reply.text).toMatch(/subscribed/);
    expect(store.subscriptions.all()).toHaveLength(5);
  });

  it('a channel full names the variable that raises its limit', async () => {
    const { core } = setup({ subscriptionsPerChannel: 1 });
    await core.command(alice, 'subscribe transco');
    expect((await core.command(alice, 'subscribe tgp')).reply.text).toMatch(
      /^Not subscribed: this channel has 1 subscription, the most it may have \(PIPEWATCH_CHAT_SUBSCRIPTIONS_PER_CHANNEL raises it, for whoever runs pipewatch\)\. Nothing was stored\. Remove some/,
    );
  });

  it('the defaults are the variables declared defaults', async () => {
    const { core, store } = setup({});
    for (let i = 0; i < 100; i++) await core.command(alice, 'subscribe transco');
    expect((await core.command(alice, 'subscribe transco')).reply.text).toMatch(
      /this channel has 100 subscriptions, the most it may have/,
    );
    expect(store.subscriptions.all()).toHaveLength(100);
    for (let i = 0; i < 20; i++)
      await core.command({ ...alice, channel: `C0CHAN${i}` }, 'mute for 1h');
    expect(
      (await core.command({ ...alice, channel: 'C0CHAN99' }, 'mute for 1h')).reply.text,
    ).toMatch(/you have 20 silences in force/);
  });
});

describe('a mute typed in a direct message, with admins set', () => {
  it('is refused to anyone else, as in a channel; an admin may', async () => {
    const { core, store } = setup({}, ['U0ALICE']);
    const dm = (c: ChatCaller): ChatCaller => ({ ...c, channel: `D${c.user}`, direct: true });
    const refused = (await core.command(dm(bob), 'mute for 1h')).reply;
    expect(refused.private).toBe(true);
    expect(refused.text).toMatch(/^Not done: only pipewatch's admins \(PIPEWATCH_CHAT_ADMINS\)/);
    expect((await core.command(dm(alice), 'mute for 1h')).reply.text).toMatch(
      /muted every pipeline/,
    );
    expect((await core.command(dm(bob), 'unmute')).reply.text).toMatch(/only pipewatch's admins/);
    expect(store.silences.active(CORE_NOW)).toHaveLength(1);
    // Reminders stay anyone's, in a direct message too.
    expect((await core.command(dm(bob), 'remind transco')).reply.text).toMatch(
      /You will get reminders/,
    );
  });
});
