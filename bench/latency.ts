/**
 * Latency, what a user waits for an alert:
 * - `posted_to_receiver_median_s`, `_p95_s`, `_max_s`: from a notice posted (shown in
 *   the API by the live simulator's refresh) to its message at the Slack fake, with
 *   pipewatch polling on its default schedule (phase-locked to the refreshes it has seen),
 *   every feed running, on an injected clock over three spans of 6 simulated hours, the
 *   real time each poll and delivery took added (`detection.ts`, `simulatedSpan`);
 * - `poll_to_receiver_p50_ms`, `_p99_ms`: the same path's own time alone, with the clock
 *   starting as the notice is posted and the poll that sees it started at once (no wait
 *   for the schedule): each round publishes one Transco constraint notice and then runs
 *   what `pipewatch run` runs when the notice timer fires: the notice sync (deciding in
 *   its transactions) and the dispatcher, woken by the new outbox row. Rounds are a
 *   second and a half apart, so the channel's pacing (one message a second per channel)
 *   never holds a message back.
 * Each is the median of three runs, with its spread (`…_spread`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlertEngine } from '../src/alerts/engine.js';
import { createSlackChannels } from '../src/channels/slack/index.js';
import type { ChannelSet } from '../src/channels/types.js';
import { Dispatcher } from '../src/delivery/dispatcher.js';
import { noticeSyncDefaults, syncNotices } from '../src/ingest/notice-sync.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { simulatorDefaults, startSimulator } from '../src/simulator/index.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { PipelineApiClient } from '../src/upstream/client.js';
import { FAKE_TOKEN, startSlackFake } from '../test/fakes/slack.js';
import { DEFAULT_STRATEGY, spans } from './detection.js';

const ROUNDS = 20;
const RUNS = 3;
/** Simulated hours of each posted-to-receiver span. */
const SPAN_HOURS = 6;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[i]! * 10) / 10;
}

/** One run of `ROUNDS` rounds: each round's milliseconds from posted to received. */
async function pollToReceiver(): Promise<number[]> {
  const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
  const sim = await startSimulator({ seed: 3, control: true });
  const slack = await startSlackFake();
  const store = Store.open(mkdtempSync(join(tmpdir(), 'pipewatch-latency-')));
  const client = new PipelineApiClient({
    baseUrl: sim.url,
    user: premium.username,
    key: premium.key,
    rateLimit: { minTimeMs: 0 },
  });
  const deps = { clock: systemClock, logger: silentLogger };
  const { slack: channel } = createSlackChannels({ token: FAKE_TOKEN, apiUrl: slack.url }, deps);
  const channels: ChannelSet = { for: () => channel as never };
  const engine = new AlertEngine(
    { store: asyncStoreOf(store), ...deps, maxAlertAgeMs: 86_400_000 },
    [
      {
        kind: 'notices',
        name: 'transco-constraints',
        at: { file: 'bench', line: 1, col: 1 },
        filter: { pipelines: ['transco'], types: ['constraint'] },
        on: ['new'],
        notify: [{ kind: 'slack', channel: '#gas' }],
      },
    ],
  );
  const dispatcher = new Dispatcher(
    { ...deps, store: asyncStoreOf(store), channels },
    { digestWindowMs: 0, maxAgeMs: 3_600_000 },
  );
  const sync = {
    client,
    ...deps,
    store: asyncStoreOf(store),
    hooks: engine.hooks({ notices: async () => dispatcher.wake() }),
  };
  const options = { ...noticeSyncDefaults, maxAlertAgeMs: 86_400_000 };
  const stop = new AbortController();
  try {
    await syncNotices(sync, options);
    const running = dispatcher.run(stop.signal, 1_000);
    const samples: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = slack.posts.length;
      sim.control.addNotice({
        pipeline_slug: 'transco',
        type: 'Capacity Constraint',
        subject: `Capacity Constraint - Station ${round}`,
        category: 'Critical',
        status: 'Initiate',
      });
      const published = performance.now();
      await syncNotices(sync, options);
      while (slack.posts.length === before) await new Promise((r) => setTimeout(r, 1));
      samples.push(slack.posts.at(-1)!.at - published);
      await new Promise((r) => setTimeout(r, 1_500));
    }
    stop.abort();
    await running;
    return samples;
  } finally {
    stop.abort();
    await channel.close?.();
    await client.close();
    store.close();
    await slack.close();
    await sim.close();
  }
}

export async function latencyBench(): Promise<Record<string, number>> {
  const posted = await spans(DEFAULT_STRATEGY, SPAN_HOURS);
  const p50: number[] = [];
  const p99: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const sorted = (await pollToReceiver()).sort((a, b) => a - b);
    p50.push(percentile(sorted, 50));
    p99.push(percentile(sorted, 99));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const spread = (xs: number[]) => Math.round((Math.max(...xs) - Math.min(...xs)) * 10) / 10;
  return {
    posted_to_receiver_median_s: posted.posted_to_receiver_median_s!,
    posted_to_receiver_median_s_spread: posted.posted_to_receiver_median_s_spread!,
    posted_to_receiver_p95_s: posted.posted_to_receiver_p95_s!,
    posted_to_receiver_p95_s_spread: posted.posted_to_receiver_p95_s_spread!,
    posted_to_receiver_max_s: posted.posted_to_receiver_max_s!,
    notices: posted.notices!,
    spans: posted.runs!,
    span_hours: SPAN_HOURS,
    poll_to_receiver_p50_ms: median(p50),
    poll_to_receiver_p50_ms_spread: spread(p50),
    poll_to_receiver_p99_ms: median(p99),
    poll_to_receiver_p99_ms_spread: spread(p99),
    rounds_per_run: ROUNDS,
    runs: RUNS,
  };
}
