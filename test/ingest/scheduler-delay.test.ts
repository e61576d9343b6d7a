import { describe, expect, it } from 'vitest';
import { type Feed, Scheduler, schedulerDefaults } from '../../src/ingest/scheduler.js';
import { silentLogger } from '../../src/lib/logger.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import { ServerError } from '../../src/upstream/errors.js';
import { ManualClock } from '../support/clock.js';
import { useTempStores } from '../support/temp-store.js';

const stores = useTempStores('pipewatch-delay-');
let store: Store;

/** Runs `feed` once, on a store of its own (a test may run two). */
async function outcome(feed: Omit<Feed, 'name' | 'intervalMs'>) {
  store = stores.open().store;
  const clock = new ManualClock('2026-11-20T15:00:00Z');
  const full: Feed = { name: 'notices', intervalMs: 600_000, ...feed };
  const scheduler = new Scheduler(
    { store: asyncStoreOf(store), clock, logger: silentLogger, random: () => 0.9 },
    [full],
  );
  return scheduler.runFeed(full, new AbortController().signal);
}

describe('a feed choosing its next delay', () => {
  it('waits what the feed chose after a success', async () => {
    const o = await outcome({ run: async () => undefined, nextDelayMs: () => 47_000 });
    expect(o).toMatchObject({ ok: true, nextDelayMs: 47_000 });
  });

  it('never waits longer than the interval, even when the feed asks to', async () => {
    const o = await outcome({ run: async () => undefined, nextDelayMs: () => 3_600_000 });
    expect(o.nextDelayMs).toBe(600_000);
  });

  it('keeps the interval with its jitter when the feed has no choice, or its choice fails', async () => {
    const jittered = Math.round(600_000 * (1 + schedulerDefaults.jitter * 0.8));
    expect(
      (await outcome({ run: async () => undefined, nextDelayMs: () => undefined })).nextDelayMs,
    ).toBe(jittered);
    store.close();
    const failing = await outcome({
      run: async () => undefined,
      nextDelayMs: () => {
        throw new Error('database is locked');
      },
    });
    expect(failing).toMatchObject({ ok: true, nextDelayMs: jittered });
  });

  it('backs off after a failure as before, whatever the feed would choose', async () => {
    const context = { method: 'GET', endpoint: '/ip/notices', host: 'api.test' };
    const o = await outcome({
      run: async () => Promise.reject(new ServerError('down', { context, status: 503 })),
      nextDelayMs: () => 1_000,
    });
    expect(o).toMatchObject({ ok: false, nextDelayMs: schedulerDefaults.failureBaseMs });
  });
});
