import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AlertEngine } from '../src/alerts/engine.js';
import { ChatCore } from '../src/chat/service.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import type { UnverifiedLimits } from '../src/lib/request-body.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { startSlackFake } from '../test/fakes/slack.js';
import { serveChatEndpoints } from '../test/support/chat-endpoints.js';
import { forgedFlood, signedLookingTargets } from '../test/support/forged-flood.js';

const REQUESTS = 1_200;
const SIZE = 1024 * 1024;
const RUNS = 3;
const MB = 1024 * 1024;

type Figures = Record<string, number | string>;

interface FloodRun {
  healthzP50: number;
  healthzMax: number;
  healthzFailed: number;
  loopBlockMax: number;
  turnCpuMax: number;
  cpuMs: number;
  rssGrowthMb: number;
  bodiesPeakMb: number;
  turnedAway: number;
  floodS: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** The `p`th percentile of values, the nearest rank. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One flood against a server whose budget is `unverified`. */
async function flood(unverified: Partial<UnverifiedLimits> | undefined): Promise<FloodRun> {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-flood-'));
  const store = Store.open(dir);
  const slackFake = await startSlackFake();
  const deps = { store, clock: systemClock, logger: silentLogger, maxAlertAgeMs: 86_400_000 };
  const engine = new AlertEngine({ ...deps, store: asyncStoreOf(store) }, []);
  const core = new ChatCore({
    ...deps,
    store: asyncStoreOf(store),
    engine,
    policy: { admins: new Set() },
  });
  const endpoints = await serveChatEndpoints({
    chat: core,
    store,
    clock: systemClock,
    slack: {
      apiUrl: slackFake.url,
      token: slackFake.token,
      signingSecret: 'b3ac0a1e5d9c4f7e8a2b6c1d0e9f8a7b',
    },
    unverified,
  });
  const { server } = endpoints;
  try {
    /** One `/healthz` on a connection of its own, as a monitor's probe: its time, or a failure. */
    const healthz = () =>
      new Promise<number | 'failed'>((resolve) => {
        const started = performance.now();
        get(`${server.url}/healthz`, { agent: false }, (res) => {
          res.resume();
          res.once('end', () =>
            resolve(res.statusCode === 200 ? performance.now() - started : 'failed'),
          );
        }).once('error', () => resolve('failed'));
      });
    if ((await healthz()) === 'failed') throw new Error('/healthz fails before the flood');
    const sender = forgedFlood({
      url: server.url,
      count: REQUESTS,
      size: SIZE,
      targets: signedLookingTargets(Math.floor(Date.now() / 1000)),
      from: 'process',
    });
    await sender.ready;
    globalThis.gc?.();
    const rssBefore = process.memoryUsage.rss();
    let rssMax = rssBefore;
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    // Each turn of the loop runs the check phase once: the CPU time between two runs of
    // it is what one turn cost. (This keeps the loop from ever waiting idle, so its
    // utilization is not a figure here.)
    let turnCpuMax = 0;
    let lastCpu = process.cpuUsage();
    let turning = true;
    const turn = () => {
      const now = process.cpuUsage();
      turnCpuMax = Math.max(turnCpuMax, now.user + now.system - lastCpu.user - lastCpu.system);
      lastCpu = now;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    const cpu = process.cpuUsage();
    const began = performance.now();
    let done = false;
    const finished = sender.done.finally(() => {
      done = true;
    });
    sender.go();
    const times: number[] = [];
    let failed = 0;
    while (!done) {
      const took = await healthz();
      if (took === 'failed') failed += 1;
      else times.push(took);
      rssMax = Math.max(rssMax, process.memoryUsage.rss());
      await new Promise((r) => setTimeout(r, 10));
    }
    const counts = await finished;
    const floodS = (performance.now() - began) / 1000;
    rssMax = Math.max(rssMax, process.memoryUsage.rss());
    delay.disable();
    turning = false;
    const used = process.cpuUsage(cpu);
    const answered = Object.values(counts).reduce((n, c) => n + c, 0);
    if (answered !== REQUESTS) throw new Error(`only ${answered} of ${REQUESTS} requests ended`);
    if (store.subscriptions.all().length > 0) throw new Error('a forged request was acted on');
    return {
      healthzP50: percentile(times, 50),
      healthzMax: Math.max(...times),
      healthzFailed: failed,
      loopBlockMax: delay.max / 1e6,
      turnCpuMax: turnCpuMax / 1000,
      cpuMs: (used.user + used.system) / 1000,
      rssGrowthMb: (rssMax - rssBefore) / MB,
      bodiesPeakMb: server.bodies.buffered.peak / MB,
      turnedAway: server.bodies.turnedAway,
      floodS,
    };
  } finally {
    await endpoints.close();
    await slackFake.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The median of each figure over the runs, and its spread. */
function summary(runs: FloodRun[], prefix: string): Figures {
  const out: Figures = {};
  const figures: Array<[string, keyof FloodRun]> = [
    ['healthz_ms_p50', 'healthzP50'],
    ['healthz_ms_max', 'healthzMax'],
    ['healthz_failed', 'healthzFailed'],
    ['loop_block_ms_max', 'loopBlockMax'],
    ['loop_turn_cpu_ms_max', 'turnCpuMax'],
    ['cpu_ms', 'cpuMs'],
    ['rss_growth_mb', 'rssGrowthMb'],
    ['bodies_peak_mb', 'bodiesPeakMb'],
    ['turned_away', 'turnedAway'],
    ['flood_s', 'floodS'],
  ];
  for (const [name, key] of figures) {
    const values = runs.map((r) => r[key]);
    out[`${prefix}${name}`] = round1(percentile(values, 50));
    out[`${prefix}${name}_range`] = `${round1(Math.min(...values))}–${round1(Math.max(...values))}`;
  }
  return out;
}

export async function forgedFloodBench(): Promise<Figures> {
  const budget: FloodRun[] = [];
  const none: FloodRun[] = [];
  // Alternated, so that both meet the machine as it is.
  for (let i = 0; i < RUNS; i++) {
    budget.push(await flood(undefined));
    none.push(await flood({ bytes: Number.POSITIVE_INFINITY, requests: Number.POSITIVE_INFINITY }));
  }
  return {
    requests: REQUESTS,
    request_mb: SIZE / MB,
    runs: RUNS,
    ...summary(budget, ''),
    ...summary(none, 'no_budget_'),
  };
}
