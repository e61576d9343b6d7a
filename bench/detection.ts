/**
 * Detection: from the refresh that makes a notice visible in the API to its message at the
 * Slack fake, in simulated time, over a simulated day of the live simulator publishing in
 * refresh batches at its default rate. The real path runs in-process on one injected
 * clock: the Scheduler runs the notice feed as `pipewatch run` builds it, the client reads
 * the simulator over loopback, the alert engine decides (a rule matching every new
 * notice) and the dispatcher delivers. After each run the clock moves by the delay the
 * scheduler chose. Strategies: the fixed 10-minute interval, a fixed 1-minute poll,
 * phase-locked at defaults, and phase-locked against an enterprise (1-minute) refresh.
 * Slack's limit of a message a second per channel is the fake's: a refused message is
 * retried when due, and its delay counts until it arrives.
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
import { Store } from '../src/store/index.js';
import { PipelineApiClient } from '../src/upstream/client.js';
import { FAKE_TOKEN, startSlackFake } from '../test/fakes/slack.js';
import { ManualClock } from '../test/support/clock.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY_MS = 24 * HOUR;
const START = '2026-11-20T06:00:00Z';

interface Strategy {
  intervalMs: number;
  phaseLocked: boolean;
  refreshEveryMs: number;
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[i] ?? Number.NaN) * 10) / 10;
}

/** One simulated day of one strategy: delays (s) per notice, and notice requests an hour. */
async function day(strategy: Strategy): Promise<Record<string, number>> {
  const clock = new ManualClock(START);
  const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
  const sim = await startSimulator({
    seed: 7,
    startAt: new Date(START),
    clock,
    live: true,
    refreshEveryMs: strategy.refreshEveryMs,
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
  const engine = new AlertEngine({ store, ...deps, maxAlertAgeMs: 86_400_000 }, [
    {
      kind: 'notices',
      name: 'everything',
      at: { file: 'bench', line: 1, col: 1 },
      filter: {},
      on: ['new'],
      notify: [{ kind: 'slack', channel: '#gas' }],
    },
  ]);
  const dispatcher = new Dispatcher(
    { store, channels, ...deps },
    { digestWindowMs: 0, maxAgeMs: 3_600_000 },
  );
  let pending: NoticeEvent[] = [];
  const hooks = engine.hooks({
    notices: (events) => {
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
    baselineAgeMs: 7 * DAY_MS,
  };
  const built = buildFeeds({ client, store, ...deps, hooks }, settings, () => ({
    pipelines: [],
    waitingForPipelineList: [],
  }))!.find((f) => f.name === NOTICES_FEED)!;
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
  const scheduler = new Scheduler({ store, ...deps, random: Math.random }, [feed]);
  const signal = new AbortController().signal;
  const delays: number[] = [];
  /** The same, for notices of the day's last 21 hours: after a pattern can have been learned. */
  const settled: number[] = [];
  let from = 0;
  try {
    // The baseline is not part of the day.
    clock.advance((await scheduler.runFeed(feed, signal)).nextDelayMs);
    pending = [];
    requests = 0;
    from = clock.now().getTime();
    while (clock.now().getTime() < from + DAY_MS) {
      const outcome = await scheduler.runFeed(feed, signal);
      if (!outcome.ok) throw outcome.error;
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
      const at = clock.now().getTime();
      for (const e of pending) {
        const created = Date.parse(e.notice.service_created_at!);
        delays.push((at - created) / 1000);
        if (created >= from + 3 * HOUR) settled.push((at - created) / 1000);
      }
      pending = [];
      clock.set(new Date(Math.max(polledAt + outcome.nextDelayMs, clock.now().getTime())));
    }
    const sorted = delays.sort((a, b) => a - b);
    return {
      median_s: percentile(sorted, 50),
      p95_s: percentile(sorted, 95),
      max_s: percentile(sorted, 100),
      after_3h_median_s: percentile(
        settled.sort((a, b) => a - b),
        50,
      ),
      after_3h_p95_s: percentile(settled, 95),
      requests_per_hour: Math.round((requests / 24) * 10) / 10,
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
    const result = await day(strategy);
    if (name === 'phase_locked') Object.assign(figures, result);
    for (const [key, value] of Object.entries(result)) figures[`${name}_${key}`] = value;
  }
  return figures;
}
