/**
 * The Discord channels against the fake, wired to the real chat core as the daemon wires
 * them: a post refused because the channel is gone or closed to the bot pauses that
 * channel's subscriptions through `onChannelGone`, with one operations alert, and still
 * fails as before; nothing else does. And with the app running, alerts to channels carry
 * components the fake accepts, while DMs do not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SendContext } from '../../../src/channels/types.js';
import { DeliveryErrorCode } from '../../../src/channels/types.js';
import { failure, memoryThreads, noticeAlert, updatedAlert } from '../../fakes/alerts.js';
import { type DiscordFault, err, FAKE_CHANNEL, startDiscordFake } from '../../fakes/discord.js';
import { capturedLogger } from '../../support/captured-logger.js';
import { checkComponents } from './component-limits.js';
import { goneChannels, NOW, startGoneCore } from './gone-setup.js';

const GAS = FAKE_CHANNEL;
const CLOSED = '1100000000000000007';
const MISSING = '1100000000000000008';
const HIDDEN = '1100000000000000009';
const ALICE = '1200000000000000005';
const MISSING_PERMISSIONS = {
  status: 403 as const,
  body: { message: 'Missing Permissions', code: 50013 },
};

const closers: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(interactive = false) {
  const fake = await startDiscordFake({
    channels: [GAS, CLOSED],
    forbidden: [HIDDEN],
    blockedUsers: [ALICE],
  });
  checkComponents(fake);
  const { logger, lines } = capturedLogger();
  const chat = startGoneCore(logger);
  const { told, ...channels } = goneChannels(fake, chat, logger, {
    maxRateLimitWaitMs: 1000,
    interactive,
  });
  closers.push(
    () => fake.close(),
    () => channels.discord.close?.(),
    () => chat.close(),
  );
  const ctx: SendContext = { now: NOW, threads: memoryThreads() };
  const send = (channel: string, alerts = [noticeAlert()]) =>
    channels.discord.send({ kind: 'discord', channel }, alerts, ctx);
  return { fake, lines, chat, told, ctx, send, ...channels };
}

describe('a channel gone, found by a send', () => {
  it('pauses the subscriptions of a channel unknown, hidden, or closed to the bot', async () => {
    const { fake, chat, told, send } = await setup();
    for (const channel of [MISSING, HIDDEN, CLOSED, GAS]) await chat.subscribe(channel);
    fake.inject(MISSING_PERMISSIONS);
    const cases: Array<[string, string]> = [
      [CLOSED, DeliveryErrorCode.Forbidden],
      [MISSING, DeliveryErrorCode.NotFound],
      [HIDDEN, DeliveryErrorCode.Forbidden],
    ];
    for (const [channel, code] of cases) {
      const error = await failure(send(channel));
      expect({ code: error.code, permanent: error.permanent }).toEqual({ code, permanent: true });
    }
    const reasons = {
      [CLOSED]: 'pipewatch may not post in the channel (50013)',
      [MISSING]: 'the channel was not found (10003)',
      [HIDDEN]: 'pipewatch can no longer see the channel (50001)',
    };
    expect(told).toEqual(Object.entries(reasons));
    expect(await chat.pauses()).toEqual([
      [`discord:${MISSING}`, reasons[MISSING]],
      [`discord:${HIDDEN}`, reasons[HIDDEN]],
      [`discord:${CLOSED}`, reasons[CLOSED]],
      [`discord:${GAS}`, null],
    ]);
  });

  it('says so once in an operations alert, however many sends find it', async () => {
    const { chat, send } = await setup();
    await chat.subscribe(MISSING, 'transco');
    await chat.subscribe(MISSING, 'tgp');
    await failure(send(MISSING));
    await failure(send(MISSING));
    expect(await chat.opsAlerts()).toEqual([[`discord:${MISSING}`, 2]]);
  });

  it('pauses nothing on other failures of a channel, or on DMs', async () => {
    const { fake, chat, told, send, discord_dm, ctx } = await setup();
    await chat.subscribe(GAS);
    const faults: Array<[DiscordFault, string]> = [
      [{ status: 500 }, 'discord: 500'],
      [{ status: 503 }, 'discord: 503'],
      [{ status: 404, body: { message: '404: Not Found', code: 0 } }, 'discord: 404'],
      [{ status: 403, body: { message: 'Cannot execute action on a DM', code: 50003 } }, '50003'],
      [{ status: 429, retryAfter: 30 }, 'discord: 429'],
    ];
    for (const [fault, said] of faults) {
      fake.inject(fault);
      expect((await failure(send(GAS))).reason).toContain(said);
    }
    // A DM refused, and a DM channel that a fault says is unknown or closed.
    const dm = (user: string) =>
      discord_dm.send({ kind: 'discord_dm', user }, [noticeAlert()], ctx);
    expect((await failure(dm(ALICE))).reason).toContain('50007');
    await dm('1200000000000000006');
    for (const fault of [
      { status: 404 as const, body: { message: 'Unknown Channel', code: 10003 } },
      MISSING_PERMISSIONS,
      { status: 403 as const, body: { message: 'Missing Access', code: 50001 } },
    ]) {
      fake.inject(fault);
      const error = await failure(dm('1200000000000000006'));
      expect(error.reason).toContain(String(fault.body.code));
      // A DM channel that failed for good is opened afresh: let the next post meet the fault.
      await dm('1200000000000000006');
    }
    expect(told).toEqual([]);
    expect(await chat.pauses()).toEqual([[`discord:${GAS}`, null]]);
  });

  it('is not found in a superseded message that cannot be edited', async () => {
    const { fake, chat, told, send } = await setup();
    await chat.subscribe(GAS);
    await send(GAS, [noticeAlert()]);
    fake.extend((req) => (req.method === 'PATCH' ? err(403, 50001, 'Missing Access') : undefined));
    await send(GAS, [updatedAlert()]);
    expect(fake.calls.filter((c) => c.method === 'PATCH').map((c) => c.status)).toEqual([403]);
    expect(told).toEqual([]);
    expect(await chat.pauses()).toEqual([[`discord:${GAS}`, null]]);
  });

  it('a report that fails changes nothing of the send, and says so in the log', async () => {
    const { chat, lines, send } = await setup();
    await chat.subscribe(MISSING);
    chat.store.close();
    const error = await failure(send(MISSING));
    expect(error.reason).toBe(`discord: 404 Unknown Channel [10003] (channel ${MISSING})`);
    expect(error.permanent).toBe(true);
    expect(lines.some((l) => l.includes(`could not report Discord channel ${MISSING} gone`))).toBe(
      true,
    );
  });
});

describe('interactive', () => {
  const componentsOf = (body: unknown) => (body as { components?: unknown[] }).components;

  it('puts components the fake accepts on alerts to channels, none on DMs', async () => {
    const { fake, send, discord_dm, ctx } = await setup(true);
    await send(GAS, [noticeAlert({ response_at: '2026-11-20T20:00:00Z' })]);
    await discord_dm.send(
      { kind: 'discord_dm', user: '1200000000000000006' },
      [noticeAlert()],
      ctx,
    );
    const posts = fake.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/messages'));
    expect(posts.map((c) => c.status)).toEqual([200, 200]);
    expect(componentsOf(posts[0]!.body)).toHaveLength(2);
    expect(componentsOf(posts[1]!.body)).toBeUndefined();
    expect(fake.messages).toHaveLength(2);
  });

  it('is off unless asked', async () => {
    const { fake, send } = await setup(false);
    await send(GAS);
    expect(componentsOf(fake.calls[0]!.body)).toBeUndefined();
  });

  it('the fake, so extended, refuses components Discord would refuse', async () => {
    const { fake } = await setup();
    const row = {
      type: 1,
      components: [{ type: 2, style: 1, label: 'x', custom_id: 'pipewatch:v1:ack' }],
    };
    const res = await fetch(`${fake.url}/v10/channels/${GAS}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'x', components: Array.from({ length: 6 }, () => row) }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 50035 });
  });
});
