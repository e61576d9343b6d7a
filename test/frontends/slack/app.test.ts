/**
 * The Slack app end to end over loopback, on the real chat core: requests signed as Slack
 * signs them in at `POST /slack/events` on the daemon's server, and what comes of them in
 * the store and in the Slack fake: acknowledgement bodies, follow-ups to the
 * `response_url`, edits with `chat.update`, the home view with `views.publish`. Where the
 * app must cope with a core that fails, the core is made to fail one way in the test.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeAction } from '../../../src/channels/slack/actions.js';
import { noticeAlert } from '../../fakes/alerts.js';
import { makeNotice } from '../../fakes/notice.js';
import { blockActions, slashCommand } from '../../fakes/slack-payloads.js';
import { failingCore, followUpFails, followUpHeld } from '../../support/chat-core.js';
import { type AppUnderTest, NOW, postedAlert, startAppUnderTest } from './app-setup.js';

let t: AppUnderTest;

afterEach(async () => {
  await t?.close();
});

/** `/pipewatch <text>` typed by `user` (default U0ALICE) in `channel` (default #gas). */
const typed = (text: string, where: { channel?: string; user?: string } = {}) =>
  slashCommand(t.fake, { text, ...where });

/** Every text a message or view shows, as one string. */
const shown = (blocks: unknown) => JSON.stringify(blocks);

describe('the /pipewatch command', () => {
  it('tells the core who typed it and where: channel, its name, user, their name', async () => {
    t = await startAppUnderTest();
    const res = await t.send.command(typed('mute transco for 4h'));
    expect(JSON.parse(res.body)).toMatchObject({
      response_type: 'in_channel',
      text: expect.stringMatching(/^alice muted transco here for 4h/),
    });
    expect(t.store.silences.active(NOW)).toMatchObject([
      {
        matchers: [
          { key: 'target', op: '=', value: 'slack:C0GAS' },
          { key: 'target', op: '=', value: 'slack:#gas' },
          { key: 'pipeline', op: '=', value: 'transco' },
        ],
        created_by: 'slack:U0ALICE',
      },
    ]);
    // In #gas the list has the channel's subscriptions; in the DM with the bot it has not.
    const here = await t.send.command(typed('list'));
    const dm = await t.send.command(typed('list', { channel: 'DU0ALICE' }));
    expect(here.body).toContain('Subscriptions of this channel');
    expect(dm.status).toBe(200);
    expect(dm.body).not.toContain('Subscriptions of this channel');
  });

  it("counts toward the workspace's limit, over its channels, by Slack's team id", async () => {
    t = await startAppUnderTest({
      limits: { subscriptionsPerWorkspace: 1, silencesPerWorkspace: 1 },
    });
    expect((await t.send.command(typed('subscribe transco'))).body).toMatch(
      /subscribed this channel/,
    );
    const refused = await t.send.command(typed('subscribe tgp', { channel: 'C0OPS' }));
    expect(JSON.parse(refused.body)).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringMatching(
        /^Not subscribed: this Slack workspace has 1 subscription, the most one workspace may have \(PIPEWATCH_CHAT_SUBSCRIPTIONS_PER_WORKSPACE raises it/,
      ),
    });
    await t.send.command(typed('mute for 1h'));
    const muted = await t.send.command(typed('mute tgp for 1h', { channel: 'C0OPS' }));
    expect(JSON.parse(muted.body)).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringMatching(
        /^Not muted: this Slack workspace has 1 silence in force, the most one workspace may have \(PIPEWATCH_CHAT_SILENCES_PER_WORKSPACE raises it/,
      ),
    });
    const workspace = `slack:${t.fake.team.id}`;
    expect(t.store.db.prepare('SELECT workspace FROM subscriptions').all()).toEqual([
      { workspace },
    ]);
    expect(t.store.db.prepare('SELECT workspace FROM silences').all()).toEqual([{ workspace }]);
  });

  it('holds reminders and silences to the limits per person and per workspace, by Slack user', async () => {
    t = await startAppUnderTest({
      limits: { remindersPerUser: 2, remindersPerWorkspace: 3, silencesPerUser: 1 },
    });
    const said = async (text: string, where: { channel?: string; user?: string } = {}) =>
      (JSON.parse((await t.send.command(typed(text, where))).body) as { text: string }).text;
    expect(await said('remind transco')).toMatch(/^You will get reminders/);
    expect(await said('remind tgp')).toMatch(/^You will get reminders/);
    expect(await said('remind texas-eastern')).toMatch(
      /^Not set: you have 2 reminders, the most one person may have \(PIPEWATCH_CHAT_REMINDERS_PER_USER raises it/,
    );
    expect(await said('mute for 1h')).toMatch(/muted every pipeline/);
    expect(await said('mute tgp for 1h', { channel: 'C0OPS' })).toMatch(
      /^Not muted: you have 1 silence in force, the most one person may have \(PIPEWATCH_CHAT_SILENCES_PER_USER raises it/,
    );
    // Another person has limits of their own, until the workspace's are reached.
    expect(await said('mute tgp for 1h', { user: 'W0BOB' })).toMatch(/muted tgp/);
    expect(await said('remind tgp', { user: 'W0BOB' })).toMatch(/^You will get reminders/);
    expect(await said('remind transco', { user: 'W0BOB' })).toMatch(
      /^Not set: this Slack workspace has 3 reminders, the most one workspace may have \(PIPEWATCH_CHAT_REMINDERS_PER_WORKSPACE raises it/,
    );
    expect(t.store.subscriptions.all()).toHaveLength(3);
    expect(t.store.silences.active(NOW)).toHaveLength(2);
  });

  it('with admins set, refuses a mute or unmute typed in a direct message to anyone else', async () => {
    t = await startAppUnderTest({ admins: ['U0ALICE'] });
    const refused = await t.send.command(
      typed('mute for 1h', { channel: 'DW0BOB', user: 'W0BOB' }),
    );
    expect(JSON.parse(refused.body)).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringMatching(/^Not done: only pipewatch's admins \(PIPEWATCH_CHAT_ADMINS\)/),
    });
    expect(t.store.silences.active(NOW)).toEqual([]);
    await t.send.command(typed('mute for 1h', { channel: 'DU0ALICE' }));
    expect(t.store.silences.active(NOW)).toHaveLength(1);
    const unmute = await t.send.command(typed('unmute', { channel: 'DW0BOB', user: 'W0BOB' }));
    expect(unmute.body).toMatch(/only pipewatch's admins/);
    expect(t.store.silences.active(NOW)).toHaveLength(1);
  });

  it('undoes Slack escaping before the core reads the words', async () => {
    t = await startAppUnderTest();
    const words =
      'subscribe transco text:"a &amp; b &lt;c&gt; <#C0OPS|ops> <@U0BOB> <https://x.example|x.example>"';
    const res = await t.send.command(typed(words));
    expect(res.status).toBe(200);
    const [made] = t.store.subscriptions.all();
    expect(JSON.stringify(made?.rule)).toContain('a & b <c> #ops @U0BOB https://x.example');
    // And what the reply quotes goes back escaped for Slack.
    expect(res.body).toContain('a &amp; b &lt;c&gt; #ops @U0BOB');
  });

  it('acknowledges at once, then posts the follow-up to the response_url when it is ready', async () => {
    let release: () => void = () => {};
    t = await startAppUnderTest({
      chat: (core) => {
        const held = followUpHeld(core);
        release = held.release;
        return held.chat;
      },
    });
    t.store.notices.upsert(
      makeNotice({ id: 7, subject: 'Station 165 <!channel> outage', posted_at: NOW }),
      NOW,
      false,
    );
    const command = typed('subscribe transco');
    const res = await t.send.command(command);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({
      response_type: 'in_channel',
      text: expect.stringMatching(/^alice subscribed this channel: transco/),
    });
    expect(t.fake.responses).toEqual([]);
    release();
    await expect.poll(() => t.fake.responses.length).toBe(1);
    const [followUp] = t.fake.responses;
    expect(followUp!.url).toBe(command.response_url);
    expect(followUp!.status).toBe(200);
    expect(followUp!.body).toMatchObject({
      response_type: 'ephemeral',
      replace_original: false,
      text: 'In the last 24 h it would have matched 1 notice.',
    });
    const blocks = shown(followUp!.body!.blocks);
    expect(blocks).toContain('Station 165 &lt;!channel&gt; outage');
    expect(blocks).not.toContain('<!channel>');
  });

  it('tells the caller when the slower work fails, and logs why', async () => {
    t = await startAppUnderTest({
      chat: (core) => followUpFails(core, new Error('database is locked')),
    });
    await t.send.command(typed('list'));
    await expect.poll(() => t.fake.responses.length).toBe(1);
    expect(t.fake.responses[0]!.body).toMatchObject({
      response_type: 'ephemeral',
      text: 'pipewatch could not do that just now; the error is in its log.',
    });
    expect(t.lines.some((l) => l.includes('/pipewatch failed: database is locked'))).toBe(true);
  });

  it('logs a follow-up Slack refuses, in one line, and goes on', async () => {
    t = await startAppUnderTest();
    const late = typed('subscribe transco');
    // The response URL has expired by the time the command is sent.
    t.clock.advance(31 * 60_000);
    expect((await t.send.command(late)).status).toBe(200);
    await expect.poll(() => t.fake.responses.map((r) => r.error)).toEqual(['Expired url']);
    await expect
      .poll(() => t.lines.filter((l) => l.includes('could not post the follow-up of /pipewatch')))
      .toHaveLength(1);
    const next = await t.send.command(typed('list'));
    expect(next.status).toBe(200);
    expect(JSON.parse(next.body).text).toMatch(/^1 subscription here/);
  });

  it('answers the caller when the core fails, and logs why', async () => {
    t = await startAppUnderTest({
      chat: (core) => failingCore(core, new Error('The database connection is not open')),
    });
    const res = await t.send.command(typed('subscribe transco'));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({
      response_type: 'ephemeral',
      text: 'pipewatch could not do that just now; the error is in its log.',
    });
    expect(t.lines.some((l) => l.includes('/pipewatch failed: The database connection'))).toBe(
      true,
    );
  });
});

describe('buttons', () => {
  it('Acknowledge edits the message for everyone; a second click is told who did it', async () => {
    t = await startAppUnderTest();
    const message = await postedAlert(t);
    const original = t.fake.message(message.channel, message.ts)!;
    // Both see the buttons; Bob clicks after Alice, before his Slack shows her edit.
    const [alice, bob] = ['U0ALICE', 'W0BOB'].map((user) =>
      blockActions(t.fake, { source: { message }, actionId: 'pipewatch_ack', user }),
    );
    const res = await t.send.interactive(alice!);
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
    await expect.poll(() => t.fake.updates.length).toBe(1);
    const edited = t.fake.message(message.channel, message.ts)!;
    const ids = edited.blocks.map((b) => (b as { block_id?: string }).block_id);
    expect(ids).not.toContain('pipewatch-actions');
    expect(shown(edited.blocks)).toContain(
      'Acknowledged by <@U0ALICE> at <!date^1795186800^{date_short_pretty} {time}|',
    );
    expect(edited.text).toBe(original.text);

    t.clock.advance(60_000);
    await t.send.interactive(bob!);
    await expect.poll(() => t.fake.responses.length).toBe(1);
    const told = t.fake.responses[0]!;
    expect(told.context).toMatchObject({ user: 'W0BOB', message });
    expect(told.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(shown(told.body!.blocks)).toContain('Already acknowledged by <@U0ALICE>');
    expect(t.fake.updates).toHaveLength(1);
  });

  it('Mute pipeline mutes this channel for the chosen time and answers only the clicker', async () => {
    t = await startAppUnderTest();
    const message = await postedAlert(t);
    const { value } = encodeAction({ kind: 'mute', pipeline: 'transco', forMs: 4 * 3_600_000 });
    await t.send.interactive(
      blockActions(t.fake, { source: { message }, actionId: 'pipewatch_mute', value }),
    );
    await expect.poll(() => t.fake.responses.length).toBe(1);
    expect(t.fake.responses[0]!.body).toMatchObject({
      response_type: 'ephemeral',
      replace_original: false,
      text: expect.stringMatching(/^alice muted transco here for 4h/),
    });
    expect(t.store.silences.active(NOW)).toMatchObject([
      {
        matchers: expect.arrayContaining([{ key: 'pipeline', op: '=', value: 'transco' }]),
        ends_at: '2026-11-20T19:00:00Z',
      },
    ]);
    // It counts toward the limits of the workspace the click came from.
    expect(t.store.db.prepare('SELECT workspace FROM silences').all()).toEqual([
      { workspace: `slack:${t.fake.team.id}` },
    ]);
    expect(t.fake.updates).toEqual([]);
  });

  it('Remind me sets a direct-message reminder of that notice for whoever clicked', async () => {
    t = await startAppUnderTest();
    const due = { id: 101, response_at: '2026-11-21T15:00:00Z' };
    t.store.notices.upsert(makeNotice(due), NOW, false);
    const message = await postedAlert(t, noticeAlert(due));
    await t.send.interactive(
      blockActions(t.fake, { source: { message }, actionId: 'pipewatch_remind', user: 'W0BOB' }),
    );
    await expect.poll(() => t.fake.responses.length).toBe(1);
    expect(t.fake.responses[0]!.body).toMatchObject({ response_type: 'ephemeral' });
    expect(t.store.subscriptions.all()).toMatchObject([
      { target: 'slack_dm:W0BOB', notice_id: 101, created_by: 'W0BOB' },
    ]);
  });

  it('Remind me clicked again on the same notice sets nothing more', async () => {
    t = await startAppUnderTest();
    const due = { id: 101, response_at: '2026-11-21T15:00:00Z' };
    t.store.notices.upsert(makeNotice(due), NOW, false);
    const message = await postedAlert(t, noticeAlert(due));
    for (let click = 1; click <= 3; click++) {
      await t.send.interactive(
        blockActions(t.fake, { source: { message }, actionId: 'pipewatch_remind', user: 'W0BOB' }),
      );
      await expect.poll(() => t.fake.responses.length).toBe(click);
    }
    expect(t.fake.responses[0]!.body).toMatchObject({
      text: expect.stringMatching(/^You will get a direct message before/),
    });
    for (const again of t.fake.responses.slice(1))
      expect(again.body).toMatchObject({
        response_type: 'ephemeral',
        text: expect.stringMatching(
          /^You already have a reminder before .* \(#1\); nothing more was set/,
        ),
      });
    expect(t.store.subscriptions.all()).toHaveLength(1);
  });

  it('a value that does not decode is answered "no longer valid" and nothing is done', async () => {
    t = await startAppUnderTest();
    // A button of a version that wrote values this one no longer reads.
    const old = await fetch(`${t.fake.url}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        channel: 'C0GAS',
        text: 'Transco: Capacity Constraint',
        blocks: [
          {
            type: 'actions',
            block_id: 'pipewatch-actions',
            elements: [
              {
                type: 'button',
                action_id: 'pipewatch_mute',
                value: 'v0:mute:transco:forever',
                text: { type: 'plain_text', text: 'Mute' },
              },
            ],
          },
        ],
      }),
    });
    const { ts } = (await old.json()) as { ts: string };
    const res = await t.send.interactive(
      blockActions(t.fake, {
        source: { message: { channel: 'C0GAS', ts } },
        actionId: 'pipewatch_mute',
      }),
    );
    expect(res.status).toBe(200);
    await expect.poll(() => t.fake.responses.length).toBe(1);
    expect(t.fake.responses[0]!.body).toMatchObject({
      response_type: 'ephemeral',
      text: 'This button is no longer valid.',
    });
    expect(t.store.silences.active(NOW)).toEqual([]);
    expect(t.fake.updates).toEqual([]);
  });

  it('a click the core fails on tells the clicker, and is logged', async () => {
    t = await startAppUnderTest({
      chat: (core) => failingCore(core, new Error('The database connection is not open')),
    });
    const message = await postedAlert(t);
    await t.send.interactive(
      blockActions(t.fake, { source: { message }, actionId: 'pipewatch_ack' }),
    );
    await expect.poll(() => t.fake.responses.length).toBe(1);
    expect(t.fake.responses[0]!.body).toMatchObject({
      response_type: 'ephemeral',
      text: 'pipewatch could not do that just now; the error is in its log.',
    });
    expect(t.fake.updates).toEqual([]);
    expect(t.lines.some((l) => l.includes('a Slack button failed'))).toBe(true);
  });
});
