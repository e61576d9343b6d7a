/**
 * `forged_flood`: what 1,200 forged 1 MiB requests sent at once cost the daemon's HTTP
 * server, and how `/healthz` answers meanwhile. The server is wired as `pipewatch run`
 * wires it: the Slack app in HTTP mode, the Discord app and the unsubscribe links on one
 * server, on the real chat core and a real Store in a temp dir. The requests carry
 * signature headers of the right form (a timestamp of now, a signature of random bytes),
 * half to `/slack/events`, half to `/discord/interactions`, so that only the signature
 * check can refuse them; they are sent from a process of their own
 * (`test/support/forged-flood.ts`), so that what this process counts is the server's.
 *
 * While the flood lasts, `/healthz` is asked again and again from this thread, and the
 * resident memory is sampled each time. Figures, each the median of three floods with
 * the spread (`…_range`, min–max) beside it:
 *
 * - `healthz_ms_p50`, `healthz_ms_max`: how long `/healthz` took to answer, each on a
 *   connection of its own as a monitor's probe; `healthz_failed`: probes that got no 200;
 * - `loop_block_ms_max`: the longest the event loop was held (`monitorEventLoopDelay`);
 *   `loop_turn_cpu_ms_max`: the most CPU time the process (its helper threads too) spent
 *   in one turn of the loop, which the machine's other load does not stretch: on a shared
 *   machine much of the first is time the process waited for a core;
 * - `cpu_ms`: the CPU time this process spent from the first request to the last answer
 *   (the machine's other load lengthens the wall times above, not this);
 * - `rss_growth_mb`: the most resident memory over what it was when the flood began;
 * - `bodies_peak_mb`: the most bytes of unverified bodies held at once, as the server
 *   counts them; `turned_away`: requests answered 503 for want of room; `flood_s`: how
 *   long until every request had its answer.
 *
 * The same with the budget lifted (`no_budget_…`) shows what the server did before
 * unverified bodies had one: every body read whole.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AlertEngine } from '../src/alerts/engine.js';
import { startDiscordApp } from '../src/channels/discord/app.js';
import { startSlackApp } from '../src/channels/slack/app.js';
import { ChatCore } from '../src/chat/service.js';
import { unsubscribeRoutes } from '../src/http/unsubscribe.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import type { UnverifiedLimits } from '../src/lib/request-body.js';
import { Store } from '../src/store/index.js';
import { startSlackFake } from '../test/fakes/slack.js';
import { forgedFlood, signedLookingTargets } from '../test/support/forged-flood.js';
import { serveRoutes } from '../test/support/http-server.js';

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
  const engine = new AlertEngine(deps, []);
  const core = new ChatCore({ ...deps, engine, policy: { admins: new Set() } });
  const common = {
    chat: core,
    clock: systemClock,
    logger: silentLogger,
    replays: store.interactions,
  };
  const slack = await startSlackApp({
    ...common,
    token: slackFake.token,
    signingSecret: 'b3ac0a1e5d9c4f7e8a2b6c1d0e9f8a7b',
    apiUrl: slackFake.url,
  });
  const { publicKey } = generateKeyPairSync('ed25519');
  const discord = startDiscordApp({
    ...common,
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex'),
    apiUrl: 'http://127.0.0.1:9',
  });
  const server = await serveRoutes(
    [
      { method: 'POST', path: '/slack/events', handle: slack.handleHttp! },
      { method: 'POST', path: '/discord/interactions', handle: discord.handleHttp },
      ...unsubscribeRoutes({
        store,
        clock: systemClock,
        logger: silentLogger,
        key: 'k'.repeat(40),
      }),
    ],
    { unverified },
  );
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
    await slack.close();
    await discord.close();
    await server.close();
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
