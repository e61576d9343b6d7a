import { afterEach, describe, expect, it } from 'vitest';
import { NoticePollPlanner } from '../../src/ingest/notice-schedule.js';
import { NOTICES_FEED, noticeSyncDefaults, syncNotices } from '../../src/ingest/notice-sync.js';
import { type Feed, Scheduler } from '../../src/ingest/scheduler.js';
import { silentLogger } from '../../src/lib/logger.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { PipelineApiClient } from '../../src/upstream/client.js';
import { capturedLogger } from '../support/captured-logger.js';
import { ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';
import { premium, START } from './harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const INTERVAL = 10 * MINUTE;

const temp = useTempStore('pipewatch-phase-');
let close: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of close.reverse()) await c();
  close = [];
});

/**
 * The notice feed as the daemon runs it, on one clock shared with a live simulator:
 * each run's outcome says how long to wait, and the clock moves by exactly that.
 */
async function polling(refreshEveryMs: number) {
  const clock = new ManualClock(START);
  const sim: Simulator = await startSimulator({
    seed: 4,
    startAt: START,
    clock,
    live: true,
    noticesPerHour: 12,
    refreshEveryMs,
  });
  const { store } = temp;
  const client = new PipelineApiClient({
    baseUrl: sim.url,
    user: premium.username,
    key: premium.key,
    clock,
    rateLimit: { minTimeMs: 0 },
    logger: silentLogger,
  });
  close.push(
    () => sim.close(),
    () => client.close(),
  );
  const { logger, lines } = capturedLogger();
  const planner = new NoticePollPlanner({ store: asyncStoreOf(store), logger }, INTERVAL);
  const deps = { client, store: asyncStoreOf(store), clock, logger: silentLogger };
  const feed: Feed = {
    name: NOTICES_FEED,
    intervalMs: INTERVAL,
    run: () => syncNotices(deps, { ...noticeSyncDefaults, maxAlertAgeMs: 86_400_000 }),
    nextDelayMs: (now) => planner.nextDelayMs(now),
  };
  const scheduler = new Scheduler(
    { store: asyncStoreOf(store), clock, logger: silentLogger, random: () => 0.5 },
    [feed],
  );
  const delays: number[] = [];
  const run = async (forMs: number) => {
    const until = clock.now().getTime() + forMs;
    while (clock.now().getTime() < until) {
      const outcome = await scheduler.runFeed(feed, new AbortController().signal);
      expect(outcome.ok).toBe(true);
      delays.push(outcome.nextDelayMs);
      clock.advance(outcome.nextDelayMs);
    }
  };
  /** How long after its refresh each notice first seen since `since` was seen, in seconds. */
  const seenAfter = (since: Date) =>
    store.notices
      .refreshObservations(`${since.toISOString().slice(0, 19)}Z`, 100_000)
      .filter((o) => !o.baseline)
      .map((o) => (Date.parse(o.firstSeenAt) - Date.parse(o.createdAt)) / 1000)
      .sort((a, b) => a - b);
  return { clock, planner, lines, delays, run, seenAfter };
}

describe('phase-locked notice polling', () => {
  it('locks on 10-minute refreshes and sees each within a minute on few polls', async () => {
    const p = await polling(10 * MINUTE);
    await p.run(6 * HOUR);
    expect(p.planner.lock?.periodMs).toBe(10 * MINUTE);
    const from = p.clock.now();
    const polls = p.delays.length;
    await p.run(6 * HOUR);
    const seen = p.seenAfter(from);
    expect(seen.length).toBeGreaterThan(30);
    expect(seen[Math.floor(seen.length / 2)]).toBeLessThanOrEqual(60);
    expect(seen.at(-1)).toBeLessThanOrEqual(120);
    expect((p.delays.length - polls) / 6).toBeLessThanOrEqual(12);
    for (const d of p.delays) expect(d).toBeLessThanOrEqual(INTERVAL);
    expect(p.lines.filter((l) => l.includes('polling just after each refresh'))).toHaveLength(1);
  });

  it('locks at the baseline, from the refreshes that created the notices it stored', async () => {
    const p = await polling(10 * MINUTE);
    await p.run(1);
    expect(p.planner.lock).toMatchObject({ periodMs: 10 * MINUTE, observed: 16 });
    // The next poll waits for the coming refresh, not the plain interval.
    expect(p.delays[0]).toBeLessThan(INTERVAL);
    expect(p.lines.filter((l) => l.includes('polling just after each refresh'))).toHaveLength(1);
    const from = p.clock.now();
    await p.run(2 * HOUR);
    const seen = p.seenAfter(from);
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.at(-1)).toBeLessThanOrEqual(120);
  });

  it('locks on the enterprise minute', async () => {
    const p = await polling(MINUTE);
    await p.run(4 * HOUR);
    expect(p.planner.lock?.periodMs).toBe(MINUTE);
    for (const d of p.delays) expect(d).toBeLessThanOrEqual(INTERVAL);
  });

  it('keeps the plain interval when the API publishes notices the instant they happen', async () => {
    const p = await polling(0);
    await p.run(8 * HOUR);
    expect(p.planner.lock).toBeNull();
    expect(new Set(p.delays)).toEqual(new Set([INTERVAL]));
    expect(p.lines.some((l) => l.includes('polling just after each refresh'))).toBe(false);
  });
});
