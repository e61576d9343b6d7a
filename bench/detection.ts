/**
 * Detection: from a notice posted (the simulator's refresh that shows it in the API) to
 * its message at the Slack fake, over simulated hours of the live simulator publishing in
 * refresh batches at its default rate. The real path runs in-process on one injected
 * clock: the Scheduler runs every feed `pipewatch run` builds (pipelines, catalog,
 * notices, capacity) on its own schedule, the client reads the simulator over loopback,
 * the alert engine decides (a rule matching every new notice) and the dispatcher
 * delivers. The clock moves to whichever feed is due next; the real time a poll and its
 * delivery take, which the injected clock does not see, is added to each notice's delay.
 * Strategies: the fixed 10-minute interval, a fixed 1-minute poll, phase-locked at
 * defaults, and phase-locked against an enterprise (1-minute) refresh. Slack's limit of a
 * message a second per channel is the fake's: a refused message is retried when due, and
 * its delay counts until it arrives.
 *
 * Each strategy runs three spans of 8 hours (a seed each); figures are the medians of the
 * spans, each with its spread (`…_spread`):
 * - `posted_to_receiver_median_s`, `_p95_s`, `_max_s`, and `after_3h_…` for notices
 *   posted once the schedule could have learned the refresh pattern;
 * - `notice_requests_per_hour`: the notice feed's requests;
 * - `all_requests_per_hour`: every request the simulator received, every feed's, as a
 *   proxy in front of the API counts them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlertEngine } from '../src/alerts/engine.js';
import { createSlackChannels } from '../src/channels/slack/index.js';
import type { ChannelSet } from '../src/channels/types.js';
import { Dispatcher } from '../src/delivery/dispatcher.js';
import type { NoticeEvent } from '../src/ingest/events.js';
import { buildFeeds } from '../src/ingest/feeds.js';
import { NOTICES_FEED, type NoticeSyncResult } from '../src/ingest/notice-sync.js';
import { type Feed, Scheduler } from '../src/ingest/scheduler.js';
import { silentLogger } from '../src/lib/logger.js';
import { simulatorDefaults, startSimulator } from '../src/simulator/index.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { PipelineApiClient } from '../src/upstream/client.js';
import { FAKE_TOKEN, startSlackFake } from '../test/fakes/slack.js';
import { ManualClock } from '../test/support/clock.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const START = '2026-11-20T06:00:00Z';

export interface Strategy {
  intervalMs: number;
  phaseLocked: boolean;
  refreshEveryMs: number;
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[i] ?? Number.NaN) * 10) / 10;
}

/**
 * `hours` simulated hours of one strategy, every feed of `pipewatch run` on its schedule:
 * the delays (s) from a notice posted (shown by a refresh) to its message at the receiver,
 * the real time the poll and the delivery took included, and the requests an hour.
 */
export async function simulatedSpan(
  strategy: Strategy,
  hours: number,
  seed: number,
): Promise<Record<string, number>> {
  const spanMs = hours * HOUR;
  const clock = new ManualClock(START);
  const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
  let apiRequests = 0;
  const count = (entry: object) => {
    if (String((entry as { path?: unknown }).path).startsWith('/api/')) apiRequests++;
  };
  const sim = await startSimulator({
    seed,
    startAt: new Date(START),
    clock,
    live: true,
    refreshEveryMs: strategy.refreshEveryMs,
    logger: { info: count, warn: count },
  });
  const slack = await startSlackFake({ clock });
  const store = Store.open(mkdtempSync(join(tmpdir(), 'pipewatch-detection-')));
  const client = new PipelineApiClient({
    baseUrl: sim.url,
    user: premium.username,
    key: premium.key,
    clock,
    logger: silentLogger,
    // Polls are seconds to minutes apart in simulated time: the limiter (500 ms between
    // requests, in real time) never holds one back, and would only slow the run down.
    rateLimit: { minTimeMs: 0 },
  });
  const deps = { clock, logger: silentLogger };
  const { slack: channel } = createSlackChannels(
    // The channel's own pacing would wait on the clock inside a dispatch; the fake's
    // limit (HTTP 429 and a retry) stands in for it.
    { token: FAKE_TOKEN, apiUrl: slack.url, perChannel: { perSecond: 1000, burst: 1000 } },
    deps,
  );
  const channels: ChannelSet = { for: () => channel as never };
  const engine = new AlertEngine(
    { store: asyncStoreOf(store), ...deps, maxAlertAgeMs: 86_400_000 },
    [
      {
        kind: 'notices',
        name: 'everything',
        at: { file: 'bench', line: 1, col: 1 },
        filter: {},
        on: ['new'],
        notify: [{ kind: 'slack', channel: '#gas' }],
      },
    ],
  );
  const dispatcher = new Dispatcher(
    { ...deps, store: asyncStoreOf(store), channels },
    { digestWindowMs: 0, maxAgeMs: 3_600_000 },
  );
  let pending: NoticeEvent[] = [];
  const hooks = engine.hooks({
    notices: async (events) => {
      pending.push(...events.filter((e) => e.change === 'new' && !e.tooOld));
    },
  });
  const settings = {
    noticesIntervalMs: strategy.intervalMs,
    capacityIntervalMs: HOUR,
    maxAlertAgeMs: 86_400_000,
    pipelines: [],
    capacityPipelines: [],
    baselinePages: 10,
    baselineAgeMs: 7 * 24 * HOUR,
  };
  const feeds = buildFeeds(
    { client, store: asyncStoreOf(store), ...deps, hooks },
    settings,
    async () => ({
      pipelines: [],
      waitingForPipelineList: [],
    }),
  );
  const built = feeds.find((f) => f.name === NOTICES_FEED)!;
  const others = feeds.filter((f) => f !== built);
  let requests = 0;
  let messages = 0;
  const feed: Feed = {
    name: built.name,
    intervalMs: built.intervalMs,
    run: async (signal) => {
      const result = (await built.run(signal)) as NoticeSyncResult;
      requests += result.requests;
      return result;
    },
    ...(strategy.phaseLocked && built.nextDelayMs ? { nextDelayMs: built.nextDelayMs } : {}),
  };
  const scheduler = new Scheduler({ store: asyncStoreOf(store), ...deps, random: Math.random }, [
    feed,
    ...others,
  ]);
  const signal = new AbortController().signal;
  const delays: number[] = [];
  /** The same, for notices after the first 3 hours: after a pattern can have been learned. */
  const settled: number[] = [];
  /** When each feed runs next, in simulated time. */
  const due = new Map<Feed, number>();
  let from = 0;
  try {
    // The start (every feed's first run, the notices' baseline) is not part of the span.
    for (const f of [...others, feed]) {
      const outcome = await scheduler.runFeed(f, signal);
      if (!outcome.ok) throw outcome.error;
      due.set(f, clock.now().getTime() + outcome.nextDelayMs);
    }
    pending = [];
    requests = 0;
    apiRequests = 0;
    from = clock.now().getTime();
    for (;;) {
      const [next, dueAt] = [...due].reduce((a, b) => (b[1] < a[1] ? b : a));
      if (dueAt >= from + spanMs) break;
      clock.set(new Date(Math.max(dueAt, clock.now().getTime())));
      const started = performance.now();
      const outcome = await scheduler.runFeed(next, signal);
      if (!outcome.ok) throw outcome.error;
      if (next !== feed) {
        due.set(next, clock.now().getTime() + outcome.nextDelayMs);
        continue;
      }
      const polledAt = clock.now().getTime();
      const before = slack.posts.length + slack.updates.length;
      // Slack (the fake) takes a message a second per channel; what it refuses is retried
      // when due, on the same clock, as the dispatcher would.
      await dispatcher.dispatchDue();
      for (
        let next = store.outbox.nextReadyAt();
        next !== null;
        next = store.outbox.nextReadyAt()
      ) {
        clock.set(new Date(Math.max(Date.parse(next), clock.now().getTime())));
        await dispatcher.dispatchDue();
      }
      const delivered = slack.posts.length + slack.updates.length - before;
      if (pending.length > 0 && delivered === 0)
        throw new Error(`${pending.length} new notices but no message arrived`);
      messages += delivered;
      // The poll and the delivery took real time, which the injected clock does not see.
      const at = clock.now().getTime() + (performance.now() - started);
      for (const e of pending) {
        const created = Date.parse(e.notice.service_created_at!);
        delays.push((at - created) / 1000);
        if (created >= from + 3 * HOUR) settled.push((at - created) / 1000);
      }
      pending = [];
      due.set(feed, Math.max(polledAt + outcome.nextDelayMs, clock.now().getTime()));
    }
    const sorted = delays.sort((a, b) => a - b);
    return {
      posted_to_receiver_median_s: percentile(sorted, 50),
      posted_to_receiver_p95_s: percentile(sorted, 95),
      posted_to_receiver_max_s: percentile(sorted, 100),
      after_3h_posted_to_receiver_median_s: percentile(
        settled.sort((a, b) => a - b),
        50,
      ),
      after_3h_posted_to_receiver_p95_s: percentile(settled, 95),
      notice_requests_per_hour: Math.round((requests / hours) * 10) / 10,
      all_requests_per_hour: Math.round((apiRequests / hours) * 10) / 10,
      notices: sorted.length,
      messages,
    };
  } finally {
    await channel.close?.();
    await client.close();
    store.close();
    await slack.close();
    await sim.close();
  }
}

/** The strategy `pipewatch run` uses at its defaults. */
export const DEFAULT_STRATEGY: Strategy = {
  intervalMs: 10 * MINUTE,
  phaseLocked: true,
  refreshEveryMs: 10 * MINUTE,
};

const SEEDS = [7, 8, 9];

/**
 * `runs` of `hours` each (seeds of their own), their figures' medians, each with its
 * spread (`…_spread`, the largest less the smallest); counts summed.
 */
export async function spans(strategy: Strategy, hours: number): Promise<Record<string, number>> {
  const runs: Array<Record<string, number>> = [];
  for (const seed of SEEDS) runs.push(await simulatedSpan(strategy, hours, seed));
  const figures: Record<string, number> = {};
  for (const key of Object.keys(runs[0]!)) {
    const xs = runs.map((r) => r[key]!);
    if (key === 'notices' || key === 'messages') {
      figures[key] = xs.reduce((a, b) => a + b, 0);
      continue;
    }
    const sorted = [...xs].sort((a, b) => a - b);
    figures[key] = sorted[Math.floor(sorted.length / 2)]!;
    figures[`${key}_spread`] = Math.round((sorted.at(-1)! - sorted[0]!) * 10) / 10;
  }
  return { ...figures, runs: runs.length, hours_each: hours };
}

/** Detection figures: the phase-locked default unprefixed, each strategy prefixed. */
export async function detectionBench(): Promise<Record<string, number>> {
  const strategies: Record<string, Strategy> = {
    interval_10m: { intervalMs: 10 * MINUTE, phaseLocked: false, refreshEveryMs: 10 * MINUTE },
    interval_1m: { intervalMs: MINUTE, phaseLocked: false, refreshEveryMs: 10 * MINUTE },
    phase_locked: { intervalMs: 10 * MINUTE, phaseLocked: true, refreshEveryMs: 10 * MINUTE },
    enterprise: { intervalMs: 10 * MINUTE, phaseLocked: true, refreshEveryMs: MINUTE },
  };
  const figures: Record<string, number> = {};
  for (const [name, strategy] of Object.entries(strategies)) {
    const result = await spans(strategy, 8);
    if (name === 'phase_locked') Object.assign(figures, result);
    for (const [key, value] of Object.entries(result)) figures[`${name}_${key}`] = value;
  }
  return figures;
}
