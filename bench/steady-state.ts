/**
 * `steady_state`: what notice polling costs when nothing happens upstream, per hour over
 * a whole deep-scan cycle (six hours: every quiet sync and the deep scan that ends it).
 * The real notice feed, as `pipewatch run` builds it at defaults, runs under the Scheduler
 * on an injected clock that moves by each delay the scheduler chooses; the simulator (not
 * live: nothing new) runs in another process, so only pipewatch's CPU is counted.
 * - `notice_requests_per_hour`, `notice_syncs_per_hour`, `requests_per_sync`: the notice
 *   feed's alone (every request of every feed: `detection`'s `all_requests_per_hour`);
 * - `notice_sync_cpu_ms_per_hour`: the CPU of those syncs alone, not of the daemon
 *   between them (timers, the dispatcher's looks, collection): a whole hour of a running
 *   daemon, syncs included, is `idle`'s `cpu_s_per_whole_hour`.
 * Each is the median of three cycles (a fresh database each), with its spread.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFeeds } from '../src/ingest/feeds.js';
import {
  NOTICES_FEED,
  type NoticeSyncResult,
  noticeSyncDefaults,
} from '../src/ingest/notice-sync.js';
import { type Feed, Scheduler } from '../src/ingest/scheduler.js';
import { silentLogger } from '../src/lib/logger.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { PipelineApiClient } from '../src/upstream/client.js';
import { ManualClock } from '../test/support/clock.js';

const HOUR = 3_600_000;

/** Starts `pipewatch simulate` in a child process and resolves with its base URL. */
async function simulatorProcess(): Promise<{ url: string; stop(): void }> {
  const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', main, 'simulate', '--port', '0', '--seed', '1'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, LOG_LEVEL: 'silent' },
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/** Steady-state figures per hour over one deep-scan cycle against `url`. */
async function cycle(url: string): Promise<Record<string, number>> {
  const clock = new ManualClock(new Date());
  const store = Store.open(mkdtempSync(join(tmpdir(), 'pipewatch-bench-')));
  const client = new PipelineApiClient({
    baseUrl: url,
    user: 'pipewatch',
    key: 'sim-premium-key',
    clock,
    logger: silentLogger,
    // Polls are seconds to minutes apart in simulated time: the limiter (500 ms between
    // requests, in real time) never holds one back, and would only slow the run down.
    rateLimit: { minTimeMs: 0 },
  });
  const deps = { client, store, clock, logger: silentLogger };
  const settings = {
    noticesIntervalMs: 600_000,
    capacityIntervalMs: HOUR,
    maxAlertAgeMs: 86_400_000,
    pipelines: [],
    capacityPipelines: [],
    baselinePages: 10,
    baselineAgeMs: 7 * 24 * HOUR,
  };
  const built = buildFeeds({ ...deps, store: asyncStoreOf(deps.store) }, settings, async () => ({
    pipelines: [],
    waitingForPipelineList: [],
  })).find((f) => f.name === NOTICES_FEED)!;
  let requests = 0;
  let syncs = 0;
  let changes = 0;
  const feed: Feed = {
    ...built,
    run: async (signal) => {
      const result = (await built.run(signal)) as NoticeSyncResult;
      requests += result.requests;
      changes += result.new + result.updated;
      syncs++;
      return result;
    },
  };
  const scheduler = new Scheduler({ store: asyncStoreOf(store), clock, logger: silentLogger }, [
    feed,
  ]);
  const signal = new AbortController().signal;
  const cycleMs = noticeSyncDefaults.deepScanEveryMs;
  try {
    // The baseline is not the steady state.
    clock.advance((await scheduler.runFeed(feed, signal)).nextDelayMs);
    requests = syncs = changes = 0;
    const from = clock.now().getTime();
    const cpu = process.cpuUsage();
    // Up to and including the deep scan that closes the cycle.
    while (clock.now().getTime() - from <= cycleMs) {
      const outcome = await scheduler.runFeed(feed, signal);
      if (!outcome.ok) throw outcome.error;
      clock.advance(outcome.nextDelayMs);
    }
    const used = process.cpuUsage(cpu);
    if (changes !== 0) throw new Error('steady state saw changes');
    const hours = (clock.now().getTime() - from) / HOUR;
    const perHour = (n: number) => Math.round((n / hours) * 10) / 10;
    return {
      notice_requests_per_hour: perHour(requests),
      notice_sync_cpu_ms_per_hour: perHour((used.user + used.system) / 1000),
      notice_syncs_per_hour: perHour(syncs),
      requests_per_sync: Math.round((requests / syncs) * 100) / 100,
      cycle_hours: Math.round(hours * 10) / 10,
    };
  } finally {
    await client.close();
    store.close();
  }
}

const RUNS = 3;

/** Steady-state figures: medians of `RUNS` cycles, each with its spread. */
export async function steadyStateBench(): Promise<Record<string, number>> {
  const sim = await simulatorProcess();
  try {
    const runs: Array<Record<string, number>> = [];
    for (let run = 0; run < RUNS; run++) runs.push(await cycle(sim.url));
    const figures: Record<string, number> = {};
    for (const key of Object.keys(runs[0]!)) {
      const xs = runs.map((r) => r[key]!).sort((a, b) => a - b);
      figures[key] = xs[Math.floor(xs.length / 2)]!;
      if (key !== 'cycle_hours')
        figures[`${key}_spread`] = Math.round((xs.at(-1)! - xs[0]!) * 100) / 100;
    }
    return { ...figures, runs: RUNS };
  } finally {
    sim.stop();
  }
}
