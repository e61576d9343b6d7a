import { describe, expect, it } from 'vitest';
import {
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  UnavailableError,
} from '../../src/upstream/errors.js';
import { backoffDelay, defaultRetryPolicy, withRetry } from '../../src/upstream/retry.js';
import { InstantClock } from '../support/clock.js';

const context = { method: 'GET', endpoint: '/ip/notices', host: 'api.test' };
const policy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxElapsedMs: 10_000 };

describe('backoffDelay', () => {
  it('grows exponentially up to the cap, with full jitter', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(policy, n, () => 1))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
    expect(backoffDelay(policy, 3, () => 0)).toBe(0);
    expect(backoffDelay(policy, 3, () => 0.5)).toBe(200);
  });

  it('uses Retry-After when the server sent one', () => {
    expect(backoffDelay(policy, 1, () => 1, 2_000)).toBe(2_000);
  });
});

describe('withRetry', () => {
  it('retries retryable failures and returns the first success', async () => {
    const clock = new InstantClock();
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw new ServerError('boom', { context, status: 500 });
        return 'ok';
      },
      { policy, clock, random: () => 1, context },
    );
    expect(result).toBe('ok');
    expect(clock.sleeps).toEqual([100, 200]);
  });

  it('does not retry a permanent failure', async () => {
    const clock = new InstantClock();
    await expect(
      withRetry(
        async () => {
          throw new NotFoundError('nope', { context, status: 404 });
        },
        { policy, clock, random: () => 1, context },
      ),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(clock.sleeps).toEqual([]);
  });

  it('gives up after the attempts with UnavailableError wrapping the last failure', async () => {
    const clock = new InstantClock();
    const error = await withRetry(
      async () => {
        throw new NetworkError('connection refused', { context });
      },
      { policy, clock, random: () => 1, context },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as UnavailableError).attempts).toBe(4);
    expect((error as UnavailableError).cause).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(
      /after 4 attempts: connection refused \(GET \/ip\/notices on api.test\)$/,
    );
    expect(clock.sleeps).toHaveLength(3);
  });

  it('honours Retry-After, and ends in RateLimitedError when 429 persists', async () => {
    const clock = new InstantClock();
    const error = await withRetry(
      async () => {
        throw new RateLimitedError('slow down', { context, status: 429, retryAfterMs: 700 });
      },
      { policy, clock, random: () => 1, context },
    ).catch((e: unknown) => e);
    expect(clock.sleeps).toEqual([700, 700, 700]);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(700);
  });

  it('stops at once when Retry-After exceeds the longest wait allowed', async () => {
    const clock = new InstantClock();
    const error = await withRetry(
      async () => {
        throw new RateLimitedError('come back in an hour', {
          context,
          status: 429,
          retryAfterMs: 3_600_000,
        });
      },
      { policy, clock, random: () => 1, context },
    ).catch((e: unknown) => e);
    expect(clock.sleeps).toEqual([]);
    expect((error as RateLimitedError).retryAfterMs).toBe(3_600_000);
  });

  it('is bounded in total time as well as attempts', async () => {
    const clock = new InstantClock();
    await withRetry(
      async () => {
        throw new ServerError('down', { context, status: 503 });
      },
      {
        policy: { ...defaultRetryPolicy, attempts: 100, maxElapsedMs: 5_000 },
        clock,
        random: () => 1,
        context,
      },
    ).catch(() => undefined);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5_000);
  });
});
