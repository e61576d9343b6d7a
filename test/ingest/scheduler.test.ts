import { describe, expect, it, vi } from 'vitest';
import { Metrics } from '../../src/http/metrics.js';
import { type Feed, Scheduler, schedulerDefaults } from '../../src/ingest/scheduler.js';
import { silentLogger } from '../../src/lib/logger.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { AuthenticationError, RateLimitedError, ServerError } from '../../src/upstream/errors.js';
import { ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const context = { method: 'GET', endpoint: '/ip/notices', host: 'api.test' };
const temp = useTempStore('pipewatch-sched-');

function setup() {
  const clock = new ManualClock('2026-11-20T15:00:00Z');
  const metrics = new Metrics({ processMetrics: false });
  return {
    clock,
    metrics,
    scheduler: (feeds: Feed[]) =>
      new Scheduler(
        {
          store: asyncStoreOf(temp.store),
          clock,
          logger: silentLogger,
          metrics,
          random: () => 0.5,
        },
        feeds,
      ),
  };
}

/** Lets pending promise callbacks run. */
async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe('Scheduler', () => {
  it('records a success and schedules the next run one interval later', async () => {
    const { scheduler, metrics } = setup();
    const s = scheduler([{ name: 'notices', intervalMs: 600_000, run: async () => undefined }]);
    const outcome = await s.runFeed(s.feeds[0]!, new AbortController().signal);
    expect(outcome).toMatchObject({ ok: true, nextDelayMs: 600_000 });
    expect(temp.store.syncState.get('notices')).toMatchObject({
      last_success_at: '2026-11-20T15:00:00Z',
      consecutive_failures: 0,
    });
    expect(await metrics.text()).toMatch(/pipewatch_syncs_total\{feed="notices",result="ok"\} 1/);
  });

  it('backs off after failures, doubling up to the interval, and honours Retry-After', async () => {
    const { scheduler } = setup();
    let error: Error = new ServerError('down', { context, status: 503 });
    const s = scheduler([
      { name: 'notices', intervalMs: 600_000, run: async () => Promise.reject(error) },
    ]);
    const signal = new AbortController().signal;
    const delays = [];
    for (let i = 0; i < 6; i++) delays.push((await s.runFeed(s.feeds[0]!, signal)).nextDelayMs);
    const base = schedulerDefaults.failureBaseMs;
    expect(delays).toEqual([base, base * 2, base * 4, base * 8, base * 16, 600_000]);
    expect(temp.store.syncState.get('notices')).toMatchObject({
      consecutive_failures: 6,
      last_error_code: 'UPSTREAM_SERVER',
    });
    error = new RateLimitedError('slow', { context, status: 429, retryAfterMs: 900_000 });
    expect((await s.runFeed(s.feeds[0]!, signal)).nextDelayMs).toBe(900_000);
  });

  it('tries refused credentials again one interval later, not sooner and not later', async () => {
    const { scheduler } = setup();
    const s = scheduler([
      {
        name: 'notices',
        intervalMs: 600_000,
        run: async () =>
          Promise.reject(new AuthenticationError('bad key', { context, status: 401 })),
      },
    ]);
    const signal = new AbortController().signal;
    const delays = [];
    for (let i = 0; i < 4; i++) delays.push((await s.runFeed(s.feeds[0]!, signal)).nextDelayMs);
    expect(delays).toEqual([600_000, 600_000, 600_000, 600_000]);
    expect(temp.store.syncState.get('notices')?.last_error_code).toBe('UPSTREAM_AUTH');
  });

  it('runs each feed on its interval, never overlapping itself, until aborted', async () => {
    const { scheduler, clock } = setup();
    const runs: string[] = [];
    let release: (() => void) | undefined;
    const s = scheduler([
      {
        name: 'fast',
        intervalMs: 60_000,
        run: async () => void runs.push(`fast@${clock.now().toISOString().slice(11, 16)}`),
      },
      {
        name: 'slow',
        intervalMs: 60_000,
        run: () =>
          new Promise<void>((resolve) => {
            runs.push('slow');
            release = resolve;
          }),
      },
    ]);
    const controller = new AbortController();
    const running = s.start(controller.signal);
    await settle();
    expect(runs).toEqual(['fast@15:00', 'slow']);
    clock.advance(60_000);
    await settle();
    clock.advance(60_000);
    await settle();
    expect(runs).toEqual(['fast@15:00', 'slow', 'fast@15:01', 'fast@15:02']);
    release?.();
    await settle();
    controller.abort();
    await running;
    expect(runs.filter((r) => r === 'slow')).toHaveLength(1);
  });

  it('runOnce runs every feed once, in order, and reports each outcome', async () => {
    const { scheduler } = setup();
    const s = scheduler([
      { name: 'a', intervalMs: 60_000, run: async () => undefined },
      { name: 'b', intervalMs: 60_000, run: async () => Promise.reject(new Error('nope')) },
    ]);
    const outcomes = await s.runOnce(new AbortController().signal);
    expect(outcomes.map((o) => [o.feed, o.ok])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });

  it('spreads the runs of a feed over ±10% of its interval, so daemons started together drift apart', async () => {
    const { clock } = setup();
    const draws = [0, 0.25, 0.5, 0.75, 0.999_999];
    let draw = 0;
    const runs: number[] = [];
    const s = new Scheduler(
      {
        store: asyncStoreOf(temp.store),
        clock,
        logger: silentLogger,
        random: () => draws[draw++ % draws.length]!,
      },
      [
        {
          name: 'notices',
          intervalMs: 600_000,
          run: async () => void runs.push(clock.now().getTime()),
        },
      ],
    );
    const stop = new AbortController();
    const running = s.start(stop.signal);
    for (let i = 0; i < draws.length; i++) {
      await vi.waitFor(() => expect(clock.sleeps).toHaveLength(i + 1));
      clock.advance(clock.sleeps[i]!);
    }
    await vi.waitFor(() => expect(runs).toHaveLength(draws.length + 1));
    stop.abort();
    await running;
    const gaps = runs.slice(1).map((t, i) => (t - runs[i]!) / 1000);
    expect(schedulerDefaults.jitter).toBe(0.1);
    expect(gaps).toEqual([540, 570, 600, 630, 660]);
  });
});
