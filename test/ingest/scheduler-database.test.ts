/**
 * The scheduler against a database that refuses to record a run: the feed keeps running,
 * backing off, says why in the log, and is unhealthy at once; once the database records
 * again, so does the feed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Scheduler, schedulerDefaults } from '../../src/ingest/scheduler.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/logger.js';
import { Store } from '../../src/store/index.js';

let store: Store | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
});

/** Makes every write to `sync_state` fail, through a second connection, as a full disk would. */
function refuseSyncStateWrites(dataDir: string) {
  const db = new Database(join(dataDir, 'pipewatch.db'));
  db.exec(`
    CREATE TRIGGER refuse_insert BEFORE INSERT ON sync_state
      BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;
    CREATE TRIGGER refuse_update BEFORE UPDATE ON sync_state
      BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;`);
  return () => {
    db.exec('DROP TRIGGER refuse_insert; DROP TRIGGER refuse_update;');
    db.close();
  };
}

function logCapture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

describe('a database that cannot record a sync', () => {
  it('keeps the feed running with backoff, logs it, and makes it unhealthy at once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-sched-db-'));
    store = Store.open(dataDir);
    const clock = new ManualClock('2026-11-20T15:00:00Z');
    const startedAt = clock.now();
    const { logger, lines } = logCapture();
    let runs = 0;
    const scheduler = new Scheduler({ store, clock, logger, random: () => 0.5 }, [
      { name: 'notices', intervalMs: 600_000, run: async () => void runs++ },
    ]);
    const repair = refuseSyncStateWrites(dataDir);
    const stop = new AbortController();
    const running = scheduler.start(stop.signal);

    await vi.waitFor(() => expect(clock.pending).toBe(1));
    expect(runs).toBe(1);
    const health = scheduler.health(clock.now(), startedAt);
    expect(health.healthy).toBe(false);
    expect(health.feeds[0]).toMatchObject({
      feed: 'notices',
      healthy: false,
      reason: 'notices sync could not be recorded in the database: database or disk is full',
    });
    expect(lines.at(-1)).toMatchObject({
      level: 50,
      feed: 'notices',
      databaseCode: 'SQLITE_CONSTRAINT_TRIGGER',
      msg: 'notices sync ran but could not be recorded in the database: database or disk is full; the feed is unhealthy until one is; next try in 30 s',
    });

    // Backing off as after any failure, the feed runs again.
    expect(clock.sleeps).toEqual([schedulerDefaults.failureBaseMs]);
    clock.advance(schedulerDefaults.failureBaseMs);
    await vi.waitFor(() => expect(clock.sleeps).toHaveLength(2));
    expect(runs).toBe(2);
    expect(clock.sleeps[1]).toBe(2 * schedulerDefaults.failureBaseMs);

    repair();
    clock.advance(2 * schedulerDefaults.failureBaseMs);
    await vi.waitFor(() => expect(clock.sleeps).toHaveLength(3));
    expect(runs).toBe(3);
    expect(clock.sleeps[2]).toBe(600_000);
    expect(scheduler.health(clock.now(), startedAt).healthy).toBe(true);
    expect(store.syncState.get('notices')).toMatchObject({
      last_success_at: '2026-11-20T15:01:30Z',
      consecutive_failures: 0,
    });
    stop.abort();
    await running;
  });

  it('a failed sync that cannot be recorded either is logged with both errors', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-sched-db-'));
    store = Store.open(dataDir);
    const clock = new ManualClock('2026-11-20T15:00:00Z');
    const { logger, lines } = logCapture();
    const scheduler = new Scheduler({ store, clock, logger, random: () => 0.5 }, [
      {
        name: 'capacity',
        intervalMs: 900_000,
        run: async () => Promise.reject(new Error('the API is down')),
      },
    ]);
    const repair = refuseSyncStateWrites(dataDir);
    const outcome = await scheduler.runFeed(scheduler.feeds[0]!, new AbortController().signal);
    repair();
    expect(outcome).toMatchObject({ ok: false, nextDelayMs: schedulerDefaults.failureBaseMs });
    expect(outcome.error?.message).toBe('the API is down');
    expect(lines.at(-1)?.msg).toBe(
      'capacity sync failed (the API is down) but could not be recorded in the database: database or disk is full; the feed is unhealthy until one is; next try in 30 s',
    );
    expect(scheduler.health(clock.now(), clock.now()).feeds[0]?.healthy).toBe(false);
  });
});
