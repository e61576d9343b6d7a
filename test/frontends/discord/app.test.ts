/**
 * The Discord app's `/pipewatch` command end to end over loopback, on the real chat core:
 * interactions signed as Discord signs them in at `POST /discord/interactions` on the
 * daemon's server, and what comes of them in the store, in the interaction response and
 * in the follow-ups posted to the interaction's webhook on the Discord fake. Who may
 * change a channel comes from the member's permissions in it, or from the admins list.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  GAS,
  GUILD_ID,
  PERMISSIONS,
  USERS,
  type Where,
} from '../../fakes/discord-interaction-payloads.js';
import { messageProblems } from '../../fakes/discord-interactions.js';
import { makeNotice } from '../../fakes/notice.js';
import { failingCore, followUpFails, LOCKED } from '../../support/chat-core.js';
import { type AppUnderTest, NOW, startAppUnderTest } from './app-setup.js';

let t: AppUnderTest;

/** The log lines saying a follow-up could not be posted. */
const followUpLines = () =>
  t.lines.filter((l) => l.includes('could not post the follow-up of /pipewatch'));

afterEach(async () => {
  await t?.close();
});

const EPHEMERAL = 64;
const FAILED = 'pipewatch could not do that just now; the error is in its log.';

/** `/pipewatch <subcommand> <options>` sent by `where.user` (Alice) in `where` (#gas). */
async function typed(
  subcommand: string,
  options: Record<string, string | number> = {},
  where: Where = {},
) {
  const res = await t.discord.interact(t.discord.command(subcommand, options, where));
  expect(res.status).toBe(200);
  const data = (res.json?.data ?? {}) as Record<string, unknown>;
  expect(messageProblems(data)).toEqual([]);
  return { res, type: res.json?.type, data, content: String(data.content ?? '') };
}

const manager: Where = { user: USERS.alice, permissions: PERMISSIONS.manager };
const member: Where = { user: USERS.bob, permissions: PERMISSIONS.member };
const channelKey = `discord:${GAS.id}`;

/** A server on loopback that takes requests and never answers them. */
async function silentServer() {
  let arrived = 0;
  const server = createServer(() => {
    arrived += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api`,
    arrived: () => arrived,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('PING', () => {
  it('is answered with a PONG when signed, with 401 when not (as Discord checks the URL)', async () => {
    t = await startAppUnderTest();
    const ping = { ...t.discord.command('list'), type: 1 } as Record<string, unknown>;
    delete ping.data;
    const res = await t.discord.interact(ping as never);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json).toEqual({ type: 1 });
    const forged = await t.discord.interact(ping as never, { otherKey: true });
    expect(forged.status).toBe(401);
  });
});

describe('subscribe', () => {
  it('by a member who may manage the channel: stored, answered for the channel, followed up', async () => {
    t = await startAppUnderTest();
    t.store.notices.upsert(
      makeNotice({ id: 7, subject: 'Station 165 @everyone outage', posted_at: NOW }),
      NOW,
      false,
    );
    const { type, data, content } = await typed(
      'subscribe',
      { pipelines: 'transco', type: 'constraint' },
      manager,
    );
    expect(type).toBe(4);
    expect(data.flags).toBeUndefined();
    expect(data.allowed_mentions).toEqual({ parse: [] });
    expect(content).toMatch(/^Alice subscribed this channel: transco/);
    const made = t.store.subscriptions.byChannel(channelKey);
    expect(made).toMatchObject([{ created_by: USERS.alice.id }]);
    expect(JSON.stringify(made[0]!.rule)).toContain('constraint');
    await expect.poll(() => t.discord.followUps.length).toBe(1);
    const [followUp] = t.discord.followUps;
    expect(followUp).toMatchObject({
      status: 200,
      body: { flags: EPHEMERAL, allowed_mentions: { parse: [] } },
    });
    expect(String(followUp!.body.content)).toContain(
      'In the last 24 h it would have matched 1 notice',
    );
    expect(JSON.stringify(followUp!.body)).not.toContain('@everyone');
  });

  it("counts toward the server's limit, over its channels; a direct message's reminder toward Discord's DMs", async () => {
    t = await startAppUnderTest({
      limits: { subscriptionsPerWorkspace: 1, silencesPerWorkspace: 1 },
    });
    await typed('subscribe', { pipelines: 'transco' }, manager);
    const ops = { id: '1200000000000000077', name: 'ops' };
    const { data, content } = await typed(
      'subscribe',
      { pipelines: 'tgp' },
      { ...manager, channel: ops },
    );
    expect(data.flags).toBe(EPHEMERAL);
    // Discord's markdown escapes come off: the words as a person reads them.
    expect(content.replaceAll('\\', '')).toMatch(
      /^Not subscribed: this Discord server has 1 subscription, the most one server may have \(PIPEWATCH_CHAT_SUBSCRIPTIONS_PER_WORKSPACE raises it/,
    );
    await typed('mute', { for: '1h' }, manager);
    const muted = await typed('mute', { for: '1h' }, { ...manager, user: USERS.bob, channel: ops });
    expect(muted.content.replaceAll('\\', '')).toMatch(
      /^Not muted: this Discord server has 1 silence in force, the most one server may have \(PIPEWATCH_CHAT_SILENCES_PER_WORKSPACE raises it/,
    );
    expect(t.store.silences.active(NOW)).toHaveLength(1);
    await typed('remind', { pipelines: 'transco' }, { user: USERS.bob, dm: true });
    expect(
      t.store.db.prepare('SELECT channel, workspace FROM subscriptions ORDER BY id').all(),
    ).toEqual([
      { channel: channelKey, workspace: `discord:${GUILD_ID}` },
      { channel: null, workspace: 'discord:-' },
    ]);
  });

  it('holds reminders and silences to the limits per person and per server, by Discord user', async () => {
    t = await startAppUnderTest({
      limits: { remindersPerUser: 2, remindersPerWorkspace: 3, silencesPerUser: 1 },
    });
    const said = async (subcommand: string, options: Record<string, string>, where: Where) =>
      (await typed(subcommand, options, where)).content.replaceAll('\\', '');
    const bob: Where = { user: USERS.bob, permissions: PERMISSIONS.manager };
    expect(await said('remind', { pipelines: 'transco' }, manager)).toMatch(/^You will get/);
    expect(await said('remind', { pipelines: 'tgp' }, manager)).toMatch(/^You will get/);
    expect(await said('remind', { pipelines: 'texas-eastern' }, manager)).toMatch(
      /^Not set: you have 2 reminders, the most one person may have \(PIPEWATCH_CHAT_REMINDERS_PER_USER raises it/,
    );
    expect(await said('mute', { for: '1h' }, manager)).toMatch(/muted every pipeline/);
    const ops = { id: '1200000000000000077', name: 'ops' };
    expect(
      await said('mute', { pipeline: 'tgp', for: '1h' }, { ...manager, channel: ops }),
    ).toMatch(
      /^Not muted: you have 1 silence in force, the most one person may have \(PIPEWATCH_CHAT_SILENCES_PER_USER raises it/,
    );
    // Another member has limits of their own, until the server's are reached.
    expect(await said('mute', { pipeline: 'tgp', for: '1h' }, bob)).toMatch(/muted tgp/);
    expect(await said('remind', { pipelines: 'tgp' }, bob)).toMatch(/^You will get/);
    expect(await said('remind', { pipelines: 'transco' }, bob)).toMatch(
      /^Not set: this Discord server has 3 reminders, the most one server may have \(PIPEWATCH_CHAT_REMINDERS_PER_WORKSPACE raises it/,
    );
    expect(t.store.subscriptions.all()).toHaveLength(3);
    expect(t.store.silences.active(NOW)).toHaveLength(2);
  });

  it('a mute typed in a DM with the bot: with admins set, refused to anyone else; without, allowed', async () => {
    t = await startAppUnderTest({ admins: [USERS.alice.id] });
    const refused = await typed('mute', { for: '1h' }, { user: USERS.bob, dm: true });
    expect(refused.data.flags).toBe(EPHEMERAL);
    expect(refused.content.replaceAll('\\', '')).toMatch(
      /^Not done: only pipewatch's admins \(PIPEWATCH_CHAT_ADMINS\)/,
    );
    expect(t.store.silences.active(NOW)).toEqual([]);
    await typed('mute', { for: '1h' }, { user: USERS.alice, dm: true });
    expect(t.store.silences.active(NOW)).toHaveLength(1);
    const unmute = await typed('unmute', {}, { user: USERS.bob, dm: true });
    expect(unmute.content).toMatch(/only pipewatch's admins/);
    expect(t.store.silences.active(NOW)).toHaveLength(1);
    await t.close();
    // Without admins a DM has no permission to check: anyone may mute there.
    t = await startAppUnderTest();
    const allowed = await typed('mute', { for: '1h' }, { user: USERS.bob, dm: true });
    expect(allowed.content).toMatch(/muted every pipeline/);
    expect(t.store.silences.active(NOW)).toHaveLength(1);
  });

  it('with Administrator alone is allowed too', async () => {
    t = await startAppUnderTest();
    await typed(
      'subscribe',
      { pipelines: 'tgp' },
      { user: USERS.carol, permissions: PERMISSIONS.administrator },
    );
    expect(t.store.subscriptions.byChannel(channelKey)).toHaveLength(1);
  });

  it('by a member without Manage Channels: refused to them alone, nothing stored', async () => {
    t = await startAppUnderTest();
    const { data, content } = await typed('subscribe', { pipelines: 'transco' }, member);
    expect(data.flags).toBe(EPHEMERAL);
    expect(content).toMatch(/^Not done: changing this channel's subscriptions .*Manage Channels/);
    expect(t.store.subscriptions.all()).toEqual([]);
    expect(t.discord.followUps).toEqual([]);
  });

  it('reads permissions as a bitfield larger than a double holds; a bad one allows nothing', async () => {
    t = await startAppUnderTest();
    const huge = String((1n << 60n) | (1n << 4n));
    await typed('subscribe', { pipelines: 'transco' }, { permissions: huge });
    expect(t.store.subscriptions.all()).toHaveLength(1);
    for (const permissions of ['', '16.0', '-16', 'all']) {
      const { data } = await typed('subscribe', { pipelines: 'tgp' }, { permissions });
      expect(data.flags).toBe(EPHEMERAL);
    }
    expect(t.store.subscriptions.all()).toHaveLength(1);
  });

  it('by a user in PIPEWATCH_CHAT_ADMINS without the permission: allowed', async () => {
    t = await startAppUnderTest({ admins: [USERS.bob.id] });
    await typed('subscribe', { pipelines: 'transco' }, member);
    expect(t.store.subscriptions.byChannel(channelKey)).toHaveLength(1);
    // And with admins set, Manage Channels alone no longer does.
    const { data } = await typed('subscribe', { pipelines: 'tgp' }, manager);
    expect(data.flags).toBe(EPHEMERAL);
    expect(t.store.subscriptions.all()).toHaveLength(1);
  });

  it('in a DM with the bot: refused, the reply says where to type it', async () => {
    t = await startAppUnderTest();
    const { data, content } = await typed('subscribe', { pipelines: 'transco' }, { dm: true });
    expect(data.flags).toBe(EPHEMERAL);
    expect(content).toContain('Subscriptions belong to channels');
    expect(t.store.subscriptions.all()).toEqual([]);
  });

  it('an unknown option or a typo gets the grammar\'s "did you mean", to the caller alone', async () => {
    t = await startAppUnderTest();
    const option = await typed('subscribe', { pipelines: 'transco', typo: 'constraint' }, manager);
    expect(option.data.flags).toBe(EPHEMERAL);
    expect(option.content).toContain('did you mean type:?');
    const pipeline = await typed('subscribe', { pipelines: 'transo' }, manager);
    expect(pipeline.content).toContain("unknown pipeline 'transo' — did you mean 'transco'?");
    const verb = await typed('subscrib', { pipelines: 'transco' }, manager);
    expect(verb.content).toContain("did you mean 'subscribe'?");
    expect(t.store.subscriptions.all()).toEqual([]);
    expect(t.discord.followUps).toEqual([]);
  });

  it('values with spaces, commas and quotes reach the rule exactly as typed', async () => {
    t = await startAppUnderTest();
    const text = `Station "165" or 'Leidy, PA'`;
    await typed('subscribe', { pipelines: 'transco, tgp texas-eastern', text }, manager);
    const [made] = t.store.subscriptions.all();
    expect(made!.rule).toMatchObject({
      notices: { pipelines: ['transco', 'tgp', 'texas-eastern'], text },
    });
  });

  it('a value no quoting can say is refused in one line, nothing stored', async () => {
    t = await startAppUnderTest();
    const { data, content } = await typed(
      'subscribe',
      { pipelines: 'transco', text: `a" b' c` },
      manager,
    );
    expect(data.flags).toBe(EPHEMERAL);
    expect(content).toMatch(/^Not done: text: holds both " and ' before a space or a comma/);
    expect(t.store.subscriptions.all()).toEqual([]);
  });
});

describe('remind, list and help', () => {
  it('remind and list are open to every member', async () => {
    t = await startAppUnderTest();
    const remind = await typed('remind', { pipelines: 'transco', before: '24h, 2h' }, member);
    expect(remind.content).toMatch(/^You will get reminders by direct message: transco/);
    expect(t.store.subscriptions.all()).toMatchObject([{ target: `discord_dm:${USERS.bob.id}` }]);
    const list = await typed('list', {}, member);
    expect(list.data.flags).toBe(EPHEMERAL);
    expect(list.content).toContain('Your reminders');
    expect(list.content).toMatch(/• #\d+ /);
    // Each item with a remove action has a button.
    expect(JSON.stringify(list.data.components)).toContain('pipewatch:v1:remove:subscription:');
  });

  it('help takes its topic as the word after help', async () => {
    t = await startAppUnderTest();
    const { content } = await typed('help', { topic: 'mute' });
    expect(content).toContain('mute');
    expect(content).toContain('```');
  });
});

describe('failures', () => {
  it('a core that throws: the caller gets a short note, the log one line, no stack', async () => {
    t = await startAppUnderTest({ chat: (core) => failingCore(core, LOCKED) });
    const { data, content } = await typed('subscribe', { pipelines: 'transco' }, manager);
    expect(data.flags).toBe(EPHEMERAL);
    expect(content).toBe(FAILED);
    const failed = t.lines.filter((l) => l.includes('database is locked'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toContain('/pipewatch failed: database is locked at Statement.run');
    expect(failed[0]).not.toContain('\\n');
  });

  it('a follow-up that fails is told to the caller through the webhook, and logged', async () => {
    t = await startAppUnderTest({
      chat: (core) => followUpFails(core, new Error('database is locked')),
    });
    await typed('list');
    await expect.poll(() => t.discord.followUps.length).toBe(1);
    expect(t.discord.followUps[0]!.body).toMatchObject({ content: FAILED, flags: EPHEMERAL });
    expect(t.lines.some((l) => l.includes('/pipewatch failed: database is locked'))).toBe(true);
  });

  it('a follow-up Discord refuses is logged in one line, without the token', async () => {
    t = await startAppUnderTest();
    const unknown = t.discord.command('subscribe', { pipelines: 'transco' }, manager);
    // Sent behind Discord's back: its webhook does not know the token.
    await t.discord.send(t.discord.build(unknown));
    await expect.poll(() => t.discord.followUps.length + followUpLines().length).toBe(1);
    expect(t.discord.followUps).toEqual([]);
    const [line] = followUpLines();
    expect(line).toContain('401 Invalid Webhook Token [50027]');
    expect(line).not.toContain(unknown.token);
    expect(t.store.subscriptions.all()).toHaveLength(1);
  });

  it('a follow-up that gets no answer is called off after timeoutMs on the clock', async () => {
    const silent = await silentServer();
    try {
      t = await startAppUnderTest({ app: { apiUrl: silent.url } });
      await typed('subscribe', { pipelines: 'transco' }, manager);
      await expect.poll(() => silent.arrived()).toBe(1);
      t.clock.advance(4999);
      // A round trip through the app: an abort would have been logged by its end.
      await typed('help');
      expect(followUpLines()).toEqual([]);
      t.clock.advance(1);
      await expect.poll(() => followUpLines()).toHaveLength(1);
      expect(followUpLines()[0]).toContain('no complete answer within 5s');
    } finally {
      await silent.close();
    }
  });

  it('closing the app calls off the follow-ups under way', async () => {
    const silent = await silentServer();
    try {
      t = await startAppUnderTest({ app: { apiUrl: silent.url } });
      await typed('subscribe', { pipelines: 'transco' }, manager);
      await expect.poll(() => silent.arrived()).toBe(1);
      await t.app.close();
      await expect.poll(() => followUpLines()).toHaveLength(1);
      expect(followUpLines()[0]).toContain('discord: aborted');
    } finally {
      await silent.close();
    }
  });
});
