/**
 * An API that asks to be left alone for longer than any real one would: the daemon waits
 * a bounded time, never less than a sane ask, and never spins.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { syncCapacity } from '../../src/ingest/capacity-sync.js';
import { NOTICES_FEED, noticeSyncDefaults, syncNotices } from '../../src/ingest/notice-sync.js';
import { Scheduler, schedulerDefaults } from '../../src/ingest/scheduler.js';
import { parseRetryAfter, RETRY_AFTER_CEILING_MS } from '../../src/lib/backoff.js';
import { createLogger, silentLogger } from '../../src/lib/logger.js';
import { RateLimitedError } from '../../src/upstream/errors.js';
import { ManualClock } from '../support/clock.js';
import { type Harness, harness } from './harness.js';

const context = { method: 'GET', endpoint: '/ip/notices', host: 'api.test' };
const HOUR = 3_600_000;
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe('Retry-After', () => {
  it('a feed waits what the API asks up to an hour (or its interval), never longer', async () => {
    h = await harness();
    const store = h.async;
    const clock = new ManualClock();
    const delayAfter = async (intervalMs: number, retryAfterMs: number) => {
      const error = new RateLimitedError('slow', { context, status: 429, retryAfterMs });
      const s = new Scheduler({ store, clock, logger: silentLogger, random: () => 0.5 }, [
        { name: 'f', intervalMs, run: () => Promise.reject(error) },
      ]);
      return (await s.runFeed(s.feeds[0]!, new AbortController().signal)).nextDelayMs;
    };
    expect(schedulerDefaults.maxRetryAfterMs).toBe(HOUR);
    expect(await delayAfter(600_000, 45 * 60_000)).toBe(45 * 60_000);
    expect(await delayAfter(600_000, 999_999_999_000)).toBe(HOUR);
    expect(await delayAfter(600_000, RETRY_AFTER_CEILING_MS)).toBe(HOUR);
    expect(await delayAfter(86_400_000, 999_999_999_000)).toBe(86_400_000);
  });

  it('Retry-After: 999999999 against the daemon: one request, then one an hour later', async () => {
    h = await harness();
    const { sim, client } = h;
    const store = h.async;
    sim.control.injectFault({
      kind: '429',
      count: 1000,
      retryAfter: 999_999_999,
      path: '/ip/notices',
    });
    const clock = new ManualClock();
    const deps = { client, store, clock, logger: silentLogger };
    const logged: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        logged.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: 'warn', destination });
    const scheduler = new Scheduler({ store, clock, logger, random: () => 0.5 }, [
      {
        name: NOTICES_FEED,
        intervalMs: 600_000,
        run: (signal) =>
          syncNotices(deps, { ...noticeSyncDefaults, maxAlertAgeMs: 86_400_000 }, signal),
      },
    ]);
    const stop = new AbortController();
    const running = scheduler.start(stop.signal);
    await vi.waitFor(() => expect(clock.pending).toBe(1));
    expect(client.stats.requests).toBe(1);
    expect(clock.sleeps).toEqual([HOUR]);
    expect(h.store.syncState.get(NOTICES_FEED)).toMatchObject({
      last_error_code: 'UPSTREAM_RATE_LIMITED',
      consecutive_failures: 1,
    });
    expect(h.store.syncState.get(NOTICES_FEED)?.last_error).toMatch(
      /the API asked to wait 11574 days/,
    );
    expect(JSON.parse(logged.join('')).msg).toMatch(
      /^notices sync failed: rate limited by the API after 1 attempt; the API asked to wait 11574 days 1 h 47 min \(GET .*\); next try in 1 h, the longest pipewatch waits for a Retry-After$/,
    );
    clock.advance(HOUR - 1);
    await settle();
    expect(client.stats.requests).toBe(1);
    clock.advance(1);
    await vi.waitFor(() => expect(clock.sleeps).toHaveLength(2));
    expect(client.stats.requests).toBe(2);
    stop.abort();
    await running;
  });

  it('is read as a finite wait whatever the header holds', () => {
    const now = new Date('2026-11-20T15:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('999999999', now)).toBe(999_999_999_000);
    expect(parseRetryAfter('9'.repeat(400), now)).toBe(RETRY_AFTER_CEILING_MS);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', now)).toBe(RETRY_AFTER_CEILING_MS);
    expect(parseRetryAfter('Thu, 19 Nov 2026 15:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(Number.isFinite(new Date(now.getTime() + RETRY_AFTER_CEILING_MS).getTime())).toBe(true);
  });

  it('ends a capacity run at the first Retry-After: no other pipeline is asked sooner', async () => {
    h = await harness();
    const { sim, client } = h;
    const store = h.async;
    sim.control.injectFault({ kind: '429', count: 100, retryAfter: 600, path: '/ip/capacity' });
    const deps = { client, store, clock: h.clock, logger: silentLogger };
    const error = await syncCapacity(deps, {
      pipelines: ['transco', 'texas-eastern', 'anr'],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(600_000);
    expect(client.stats.requests).toBe(1);
    const s = new Scheduler({ store, clock: new ManualClock(), logger: silentLogger }, [
      { name: 'capacity', intervalMs: 900_000, run: () => Promise.reject(error) },
    ]);
    expect((await s.runFeed(s.feeds[0]!, new AbortController().signal)).nextDelayMs).toBe(600_000);
  });
});
