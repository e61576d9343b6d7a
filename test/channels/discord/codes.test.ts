/**
 * The kind of every Discord failure, against the loopback fake: what the outbox stores
 * and `status` groups by. A refused token is remembered by its kind, so no request is
 * sent with it again. The time limit runs on a manual clock, moved once the request is at
 * the fake: on a busy machine a limit in real time ends requests the fake answers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_DELIVERY_TIMEOUT_MS } from '../../../src/channels/deadline.js';
import { createDiscordChannels } from '../../../src/channels/discord/index.js';
import { systemClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { failure, memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { type DiscordFault, FAKE_CHANNEL, startDiscordFake } from '../../fakes/discord.js';
import { ManualClock } from '../../support/clock.js';

const TARGET = { kind: 'discord' as const, channel: FAKE_CHANNEL };
const ctx = { now: '2026-11-20T15:00:00Z' as const, threads: memoryThreads() };
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(token?: string) {
  const fake = await startDiscordFake({ forbidden: ['1100000000000000009'] });
  const deadlineClock = new ManualClock();
  const channels = createDiscordChannels(
    { token: token ?? fake.token, apiUrl: fake.url, maxRateLimitWaitMs: 1000 },
    { clock: systemClock, logger: silentLogger, deadlineClock },
  );
  closers.push(
    () => fake.close(),
    async () => channels.discord.close?.(),
  );
  return { fake, deadlineClock, ...channels };
}

describe('the kind of a Discord failure', () => {
  it.each([
    [{ status: 400 }, 'REJECTED', true],
    [{ status: 403 }, 'FORBIDDEN', true],
    [{ status: 404 }, 'NOT_FOUND', true],
    [{ status: 500 }, 'SERVER_ERROR', false],
    [{ status: 503 }, 'SERVER_ERROR', false],
    [{ status: 429, retryAfter: 30 }, 'RATE_LIMITED', false],
  ] as Array<[DiscordFault, string, boolean]>)('%j: %s', async (fault, code, permanent) => {
    const { fake, discord } = await setup();
    fake.inject(fault);
    const error = await failure(discord.send(TARGET, [noticeAlert()], ctx));
    expect({ code: error.code, permanent: error.permanent }).toEqual({ code, permanent });
  });

  it('no answer within the time limit: TIMEOUT', async () => {
    const { fake, discord, deadlineClock } = await setup();
    fake.inject({ hang: true });
    const sending = failure(discord.send(TARGET, [noticeAlert()], ctx));
    await vi.waitFor(() => expect([fake.calls.length, deadlineClock.pending]).toEqual([1, 1]), {
      timeout: 15_000,
      interval: 5,
    });
    deadlineClock.advance(DEFAULT_DELIVERY_TIMEOUT_MS);
    expect(await sending).toMatchObject({ code: 'TIMEOUT', permanent: false });
  });

  it('an unknown channel, a hidden one, a bad id', async () => {
    const { discord } = await setup();
    const send = (channel: string) =>
      failure(discord.send({ kind: 'discord', channel }, [noticeAlert()], ctx));
    expect((await send('1100000000000000008')).code).toBe('NOT_FOUND');
    expect((await send('1100000000000000009')).code).toBe('FORBIDDEN');
    expect((await send('#gas')).code).toBe('REJECTED');
  });

  it('a refused connection: NETWORK', async () => {
    const { fake, discord } = await setup();
    await fake.close();
    expect((await failure(discord.send(TARGET, [noticeAlert()], ctx))).code).toBe('NETWORK');
  });

  it('a refused token: AUTH, and no request is made with it again', async () => {
    const { fake, discord } = await setup('not-the-token');
    const first = await failure(discord.send(TARGET, [noticeAlert()], ctx));
    const second = await failure(discord.send(TARGET, [noticeAlert()], ctx));
    expect([first.code, second.code]).toEqual(['AUTH', 'AUTH']);
    expect(fake.count(401)).toBe(1);
  });

  it('no token at all: NOT_CONFIGURED, for good', async () => {
    const { discord } = await setup('');
    const error = await failure(discord.send(TARGET, [noticeAlert()], ctx));
    expect(error).toMatchObject({ code: 'NOT_CONFIGURED', permanent: true });
  });
});
