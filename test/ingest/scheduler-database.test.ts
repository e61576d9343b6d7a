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
import { createLogger } from '../../src/lib/logger.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { startCli, until } from '../cli/run-cli.js';
import { ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';
import { type Harness, harness, premium } from './harness.js';

const temp = useTempStore('pipewatch-sched-db-');
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
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
    const { store, dir: dataDir } = temp;
    const clock = new ManualClock('2026-11-20T15:00:00Z');
    const startedAt = clock.now();
    const { logger, lines } = logCapture();
    let runs = 0;
    const scheduler = new Scheduler(
      { store: asyncStoreOf(store), clock, logger, random: () => 0.5 },
      [{ name: 'notices', intervalMs: 600_000, run: async () => void runs++ }],
    );
    const repair = refuseSyncStateWrites(dataDir);
    const stop = new AbortController();
    const running = scheduler.start(stop.signal);

    await vi.waitFor(() => expect(clock.pending).toBe(1));
    expect(runs).toBe(1);
    const health = await scheduler.health(clock.now(), startedAt);
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
    expect((await scheduler.health(clock.now(), startedAt)).healthy).toBe(true);
    expect(store.syncState.get('notices')).toMatchObject({
      last_success_at: '2026-11-20T15:01:30Z',
      consecutive_failures: 0,
    });
    stop.abort();
    await running;
  });

  it('a failed sync that cannot be recorded either is logged with both errors', async () => {
    const { store, dir: dataDir } = temp;
    const clock = new ManualClock('2026-11-20T15:00:00Z');
    const { logger, lines } = logCapture();
    const scheduler = new Scheduler(
      { store: asyncStoreOf(store), clock, logger, random: () => 0.5 },
      [
        {
          name: 'capacity',
          intervalMs: 900_000,
          run: async () => Promise.reject(new Error('the API is down')),
        },
      ],
    );
    const repair = refuseSyncStateWrites(dataDir);
    const outcome = await scheduler.runFeed(scheduler.feeds[0]!, new AbortController().signal);
    repair();
    expect(outcome).toMatchObject({ ok: false, nextDelayMs: schedulerDefaults.failureBaseMs });
    expect(outcome.error?.message).toBe('the API is down');
    expect(lines.at(-1)?.msg).toBe(
      'capacity sync failed (the API is down) but could not be recorded in the database: database or disk is full; the feed is unhealthy until one is; next try in 30 s',
    );
    expect((await scheduler.health(clock.now(), clock.now())).feeds[0]?.healthy).toBe(false);
  });

  it("shows on the daemon's /healthz and /status at once, and clears when the database records again", async () => {
    h = await harness();
    const dataDir = temp.dir;
    temp.store.close();
    const repair = refuseSyncStateWrites(dataDir);
    const clock = new ManualClock('2026-11-20T15:00:00Z');
    const stop = new AbortController();
    const running = startCli(
      ['run'],
      {
        PIPEWATCH_API_URL: h.sim.url,
        PIPEWATCH_API_USER: premium.username,
        PIPEWATCH_API_KEY: premium.key,
        PIPEWATCH_API_RATE: '100',
        PIPEWATCH_DATA_DIR: dataDir,
        PIPEWATCH_RULES_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-rules-')),
        PIPEWATCH_HTTP_PORT: '0',
        LOG_LEVEL: 'info',
      },
      { clock, signal: stop.signal },
    );
    const unrecorded = /notices sync .*could not be recorded in the database/;
    await until(() => unrecorded.test(running.stderr.text), running);
    const url = /health, status and metrics on (http:\/\/[\d.:]+)/.exec(running.stderr.text)![1]!;
    const sick = await fetch(`${url}/healthz`);
    expect(sick.status).toBe(503);
    const body = (await sick.json()) as { reasons: string[] };
    expect(body.reasons).toContain(
      'notices sync could not be recorded in the database: database or disk is full',
    );
    const status = (await (await fetch(`${url}/status`)).json()) as {
      healthy: boolean;
      feeds: Array<{ feed: string; healthy: boolean }>;
    };
    expect(status.healthy).toBe(false);
    expect(status.feeds.find((f) => f.feed === 'notices')?.healthy).toBe(false);

    repair();
    const noticesHealthy = async () => {
      const report = (await (await fetch(`${url}/healthz`)).json()) as {
        feeds: Array<{ feed: string; healthy: boolean }>;
      };
      return report.feeds.find((f) => f.feed === 'notices')?.healthy === true;
    };
    // The next run, 30 s later as after any failure, is recorded: the feed is healthy again.
    let healthy = false;
    for (let s = 0; s < 300 && !healthy; s++) {
      clock.advance(1_000);
      healthy = await noticesHealthy();
    }
    expect(healthy).toBe(true);
    stop.abort();
    expect((await running.done).code).toBe(0);
  });
});
