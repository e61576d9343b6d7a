/** The Discord channels against the loopback Discord fake: delivery, rate limits, errors. */

import { getEventListeners } from 'node:events';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordChannels, type DiscordOptions } from '../../../src/channels/discord/index.js';
import type { DeliveryError, SendContext } from '../../../src/channels/types.js';
import { systemClock } from '../../../src/lib/clock.js';
import { createLogger } from '../../../src/lib/logger.js';
import {
  deadlineAlert,
  failure,
  hostileAlerts,
  memoryThreads,
  noticeAlert,
} from '../../fakes/alerts.js';
import { type DiscordFakeOptions, FAKE_CHANNEL, startDiscordFake } from '../../fakes/discord.js';
import { capturedLogger } from '../../support/captured-logger.js';

const NOW = '2026-11-20T15:00:00Z';
const TARGET = { kind: 'discord' as const, channel: FAKE_CHANNEL };
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(fakeOptions: DiscordFakeOptions = {}, options: Partial<DiscordOptions> = {}) {
  const fake = await startDiscordFake(fakeOptions);
  const { logger, lines } = capturedLogger();
  const make = () => {
    const made = createDiscordChannels(
      {
        token: fake.token,
        apiUrl: fake.url,
        timeoutMs: 2000,
        maxRateLimitWaitMs: 1000,
        ...options,
      },
      { clock: systemClock, logger },
    );
    closers.unshift(async () => made.discord.close?.());
    return made;
  };
  closers.push(() => fake.close());
  const ctx: SendContext = { now: NOW, threads: memoryThreads() };
  return { fake, lines, make, ctx, ...make() };
}

describe('sending', () => {
  it('posts the rendered message with the bot token, a nonce and no mentions', async () => {
    const { fake, discord, ctx } = await setup();
    const delivered = await discord.send(TARGET, [noticeAlert()], ctx);
    expect(fake.messages).toHaveLength(1);
    const [message] = fake.messages;
    expect(delivered.detail).toBe(`ok channel=${FAKE_CHANNEL} message=${message!.id}`);
    expect(message!.id).toMatch(/^\d{17,20}$/);
    const call = fake.calls[0]!;
    expect(call).toMatchObject({
      method: 'POST',
      path: `/v10/channels/${FAKE_CHANNEL}/messages`,
      status: 200,
    });
    expect(call.authorization).toBe(`Bot ${fake.token}`);
    expect(call.body).toMatchObject({ allowed_mentions: { parse: [] }, enforce_nonce: true });
    expect(String((call.body as { nonce: string }).nonce)).toHaveLength(25);
  });

  it('delivers a digest of hostile and long alerts that the API accepts', async () => {
    const { fake, discord, ctx } = await setup();
    await discord.send(TARGET, hostileAlerts(), ctx);
    expect(fake.messages[0]!.embeds).toHaveLength(hostileAlerts().length);
  });

  it('does not post twice when the same alerts are sent again, even by a new client', async () => {
    const { fake, discord, make, ctx } = await setup();
    const first = await discord.send(TARGET, [noticeAlert()], ctx);
    const again = await discord.send(TARGET, [noticeAlert()], ctx);
    const restarted = await make().discord.send(TARGET, [noticeAlert()], ctx);
    expect(again.detail).toBe(first.detail);
    expect(restarted.detail).toBe(first.detail);
    expect(fake.messages).toHaveLength(1);
  });

  it('answers verify with the bot user name', async () => {
    const { discord } = await setup();
    expect(await discord.verify?.()).toBe('discord: pipewatch');
  });

  it('accepts DISCORD_API_URL with a trailing slash or version', async () => {
    const { fake, make, ctx } = await setup();
    const { discord } = make();
    const slash = createDiscordChannels(
      { token: fake.token, apiUrl: `${fake.url}/v10/` },
      {
        clock: systemClock,
        logger: createLogger({ level: 'silent' }),
      },
    );
    closers.unshift(async () => slash.discord.close?.());
    await discord.send(TARGET, [noticeAlert()], ctx);
    await slash.discord.send(TARGET, [deadlineAlert()], ctx);
    expect(fake.messages).toHaveLength(2);
  });
});

describe('rate limits', () => {
  it('paces requests to the channel bucket from X-RateLimit headers, losing nothing', async () => {
    const { fake, discord, ctx } = await setup({ bucket: { limit: 2, resetAfterMs: 100 } });
    const alerts = Array.from({ length: 5 }, (_, i) =>
      noticeAlert({ id: 300 + i }, `r|notice:${300 + i}:v1|d`),
    );
    await Promise.all(alerts.map((a) => discord.send(TARGET, [a], ctx)));
    expect(fake.messages).toHaveLength(5);
    expect(fake.count(429)).toBe(0);
  });

  it('waits out a short 429 (a bucket shared with another client) and delivers', async () => {
    const { fake, discord, make, ctx } = await setup({ bucket: { limit: 1, resetAfterMs: 400 } });
    const other = make().discord;
    await other.send(TARGET, [noticeAlert({ id: 1 }, 'a|notice:1:v1|d')], ctx);
    await discord.send(TARGET, [noticeAlert({ id: 2 }, 'b|notice:2:v1|d')], ctx);
    expect(fake.count(429)).toBe(1);
    expect(fake.messages).toHaveLength(2);
  });

  it('waits out an injected 429 with retry_after and delivers', async () => {
    const { fake, discord, ctx } = await setup();
    fake.inject({ status: 429, retryAfter: 0.05 });
    await discord.send(TARGET, [noticeAlert()], ctx);
    expect(fake.count(429)).toBe(1);
    expect(fake.messages).toHaveLength(1);
  });

  it('fails a long 429 at once as retryable with retryAfterMs, posting nothing', async () => {
    const { fake, discord, ctx } = await setup();
    fake.inject({ status: 429, retryAfter: 30, global: true });
    const error = await failure(discord.send(TARGET, [noticeAlert()], ctx));
    expect(error.permanent).toBe(false);
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(29_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(31_000);
    expect(error.reason).toMatch(/^discord: 429 global rate limit, retry in 3\ds/);
    expect(fake.messages).toHaveLength(0);
  });
});

describe('failures', () => {
  it('makes 404 and 403 permanent, naming the channel', async () => {
    const { discord, ctx } = await setup({ forbidden: ['1100000000000000009'] });
    const unknown = await failure(
      discord.send({ kind: 'discord', channel: '1100000000000000008' }, [noticeAlert()], ctx),
    );
    expect(unknown.permanent).toBe(true);
    expect(unknown.reason).toBe(
      'discord: 404 Unknown Channel [10003] (channel 1100000000000000008)',
    );
    const denied = await failure(
      discord.send({ kind: 'discord', channel: '1100000000000000009' }, [noticeAlert()], ctx),
    );
    expect(denied.permanent).toBe(true);
    expect(denied.reason).toBe('discord: 403 Missing Access [50001] (channel 1100000000000000009)');
  });

  it('makes 500 and 503 retryable, without retrying inside the client', async () => {
    const { fake, discord, ctx } = await setup();
    fake.inject({ status: 500 });
    const e500 = await failure(discord.send(TARGET, [noticeAlert()], ctx));
    fake.inject({ status: 503 });
    const e503 = await failure(discord.send(TARGET, [noticeAlert()], ctx));
    expect([e500.permanent, e503.permanent]).toEqual([false, false]);
    expect(e500.reason).toBe(`discord: 500 Internal Server Error (channel ${FAKE_CHANNEL})`);
    expect(e503.reason).toMatch(/^discord: 503 /);
    expect(fake.calls).toHaveLength(2);
    await discord.send(TARGET, [noticeAlert()], ctx);
    expect(fake.messages).toHaveLength(1);
  });

  it('makes timeouts and refused connections retryable', async () => {
    const { fake, make, ctx } = await setup({}, { timeoutMs: 150 });
    fake.inject({ hang: true });
    const timeout = await failure(make().discord.send(TARGET, [noticeAlert()], ctx));
    expect(timeout).toMatchObject({
      permanent: false,
      reason: `discord: no complete answer within 150ms (channel ${FAKE_CHANNEL})`,
    });
    await fake.close();
    const refused = await failure(make().discord.send(TARGET, [noticeAlert()], ctx));
    expect(refused.permanent).toBe(false);
    expect(refused.reason).toBe(`discord: network error ECONNREFUSED (channel ${FAKE_CHANNEL})`);
  });

  it('makes an aborted send retryable and leaves no listeners on the caller signal', async () => {
    const { fake, discord, ctx } = await setup({ bucket: { limit: 100, resetAfterMs: 1000 } });
    const controller = new AbortController();
    const live = { ...ctx, signal: controller.signal };
    for (let i = 0; i < 12; i++)
      await discord.send(TARGET, [noticeAlert({ id: i }, `l|notice:${i}:v1|d`)], live);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    fake.inject({ hang: true });
    const sending = discord.send(TARGET, [noticeAlert()], live);
    setImmediate(() => controller.abort());
    expect(await failure(sending)).toMatchObject({
      permanent: false,
      reason: `discord: aborted (channel ${FAKE_CHANNEL})`,
    });
  });

  it('rejects ids that are not Discord ids without calling the API', async () => {
    const { fake, discord, discord_dm, ctx } = await setup();
    const bad = await failure(
      discord.send({ kind: 'discord', channel: '../users/@me' }, [noticeAlert()], ctx),
    );
    expect(bad.permanent).toBe(true);
    expect(bad.reason).toMatch(/^discord: invalid channel id/);
    const dm = await failure(
      discord_dm.send({ kind: 'discord_dm', user: 'alice' }, [noticeAlert()], ctx),
    );
    expect(dm.permanent).toBe(true);
    expect(fake.calls).toHaveLength(0);
  });

  it('never shows a token that Discord quotes back in its refusal', async () => {
    const { fake, discord, ctx } = await setup();
    fake.inject({
      status: 403,
      body: { message: `Missing Access for ${fake.token}`, code: 50001 },
    });
    const error = await failure(discord.send(TARGET, [noticeAlert()], ctx));
    expect(error.reason).toMatch(/^discord: 403 Missing Access for \[redacted\] \[50001\]/);
    expect(error.reason).not.toContain(fake.token);
  });

  it('never shows the token in errors, reasons or logs', async () => {
    const { fake, discord, make, lines, ctx } = await setup({}, { timeoutMs: 150 });
    const errors: DeliveryError[] = [];
    for (const fault of [
      { status: 500 as const },
      { status: 429 as const, retryAfter: 30 },
      { hang: true as const },
    ]) {
      fake.inject(fault);
      errors.push(await failure(make().discord.send(TARGET, [noticeAlert()], ctx)));
    }
    const other = { kind: 'discord' as const, channel: '1100000000000000008' };
    errors.push(await failure(discord.send(other, [noticeAlert()], ctx)));
    const wrong = createDiscordChannels(
      { token: `${fake.token}-revoked`, apiUrl: fake.url },
      { clock: systemClock, logger: createLogger({ level: 'silent' }) },
    );
    errors.push(await failure(wrong.discord.send(TARGET, [noticeAlert()], ctx)));
    errors.push(await failure(wrong.discord.send(TARGET, [noticeAlert()], ctx)));
    expect(errors.at(-1)).toMatchObject({
      permanent: true,
      reason: 'discord: 401 Unauthorized, check DISCORD_BOT_TOKEN',
    });
    expect(fake.count(401)).toBe(1);
    await fake.close();
    errors.push(await failure(discord.send(TARGET, [noticeAlert()], ctx)));
    for (const e of errors) {
      const shown = `${e.message} ${e.reason} ${inspect(e, { depth: 10 })} ${JSON.stringify(e)}`;
      expect(shown).not.toContain(fake.token);
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain(fake.token);
  });
});

describe('direct messages', () => {
  it('opens the DM channel once per user and posts there', async () => {
    const { fake, discord_dm, ctx } = await setup();
    const user = '1300000000000000001';
    await discord_dm.send({ kind: 'discord_dm', user }, [noticeAlert()], ctx);
    await discord_dm.send({ kind: 'discord_dm', user }, [deadlineAlert()], ctx);
    const opens = fake.calls.filter((c) => c.path === '/v10/users/@me/channels');
    expect(opens).toHaveLength(1);
    expect(opens[0]!.body).toEqual({ recipient_id: user });
    expect(fake.messages.map((m) => m.channel_id)).toEqual([
      fake.dms.get(user),
      fake.dms.get(user),
    ]);
  });

  it('makes closed DMs and invalid recipients permanent', async () => {
    const blockedUser = '1300000000000000002';
    const { discord_dm, ctx } = await setup({ blockedUsers: [blockedUser] });
    const blocked = await failure(
      discord_dm.send({ kind: 'discord_dm', user: blockedUser }, [noticeAlert()], ctx),
    );
    expect(blocked).toMatchObject({
      permanent: true,
      reason: `discord: 403 Cannot send messages to this user [50007] (user ${blockedUser})`,
    });
    const invalid = await failure(
      discord_dm.send({ kind: 'discord_dm', user: '42' }, [noticeAlert()], ctx),
    );
    expect(invalid).toMatchObject({
      permanent: true,
      reason: 'discord: 400 Invalid Recipient(s) [50033] (user 42)',
    });
  });
});
