/**
 * `idle_cpu`: the CPU time the daemon burns with nothing new to do, as CPU-seconds an
 * hour. `pipewatch run` is started as a process (`startDaemon`, as the acceptance tests
 * start it) against the simulator, with one rule alerting a Slack channel of the Slack
 * fake (alerts only: no app), in a fresh data directory. It waits for the daemon's HTTP
 * address, until every feed the daemon named at start has a first successful run
 * recorded in its database (read from outside, the daemon not asked), until the process
 * has been quiet for three seconds, and then `SETTLE_MS` (60 s) more: for about forty
 * seconds after its first sync V8 still collects and compiles in bursts (up to a fifth
 * of a second of CPU each), which would count as idle work. Then it reads the process's
 * CPU time, waits `WINDOW_MS` (60 s) without touching the daemon (no scrape, no request;
 * the default poll intervals, 10 and 15 minutes, put no sync in the window), reads it
 * again and extrapolates to an hour.
 *
 * CPU time is the sum of every thread's time on a CPU from /proc/<pid>/task/<tid>/
 * schedstat, in nanoseconds: utime + stime of /proc/<pid>/stat count 10 ms ticks, too
 * coarse for a figure under one second an hour over a minute. The process runs under
 * tsx, as the tests start it; once settled, tsx adds nothing that runs. Linux only.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { Store } from '../src/store/index.js';
import { type DaemonProcess, startDaemon } from '../test/fakes/daemon-process.js';
import { startSimulatedApi } from '../test/fakes/simulated-api.js';
import { startSlackFake } from '../test/fakes/slack.js';

const WINDOW_MS = 60_000;
const SETTLE_MS = 60_000;
const WITHIN_MS = 60_000;
const QUIET_MS = 3_000;
const RULES = `rules:
  - name: transco-constraints
    notices:
      pipelines: [transco]
      types: [constraint]
    notify:
      - slack: "#gas"
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Checks `done` every `everyMs` until it holds; fails after `withinMs` naming `what`. */
async function poll(what: string, done: () => boolean, withinMs: number, everyMs = 100) {
  const until = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Nanoseconds on a CPU, summed over the threads the process has now. */
function cpuNanos(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read; its time is lost either way.
    }
  }
  return total;
}

/** Waits until the process has used under 1% of a core and logged nothing for `QUIET_MS`. */
async function quiet(d: DaemonProcess): Promise<void> {
  const samples: Array<{ at: number; ns: number; lines: number }> = [];
  await poll(
    'the daemon to be idle',
    () => {
      const now = { at: Date.now(), ns: cpuNanos(d.pid), lines: d.logs().length };
      samples.push(now);
      const from = samples.find((s) => now.at - s.at <= QUIET_MS + 250);
      if (!from || now.at - from.at < QUIET_MS) return false;
      return now.ns - from.ns <= (now.at - from.at) * 1e4 && now.lines === from.lines;
    },
    WITHIN_MS,
    250,
  );
}

/** The feeds the daemon said it runs, each with a success recorded. */
function feedsDone(d: DaemonProcess, dataDir: string): boolean {
  const running = d.logs().find((l) => l.msg.startsWith('pipewatch running'));
  const feeds = (running?.feeds as string[] | undefined)?.map((f) => f.split('/')[0]!);
  if (!feeds) return false;
  const store = Store.openReadonly(dataDir);
  try {
    const done = new Set(
      store.syncState
        .all()
        .filter((s) => s.last_success_at)
        .map((s) => s.feed),
    );
    return feeds.every((f) => done.has(f));
  } finally {
    store.close();
  }
}

/** The `idle_cpu` figures. */
export async function idleCpuBench(): Promise<Record<string, number>> {
  const slack = await startSlackFake();
  const api = await startSimulatedApi({
    seed: 43,
    start: new Date(Math.floor(Date.now() / 1000) * 1000),
    rules: RULES,
  });
  const d = startDaemon({ ...api.env, SLACK_BOT_TOKEN: slack.token, SLACK_API_URL: slack.url });
  try {
    await d.http;
    await poll("every feed's first run", () => feedsDone(d, api.env.PIPEWATCH_DATA_DIR), WITHIN_MS);
    await quiet(d);
    await sleep(SETTLE_MS);
    const lines = d.logs().length;
    const from = { at: process.hrtime.bigint(), ns: cpuNanos(d.pid) };
    await sleep(WINDOW_MS);
    const to = { at: process.hrtime.bigint(), ns: cpuNanos(d.pid) };
    if (d.logs().length !== lines)
      throw new Error(`the daemon worked during the window: ${d.logs().at(-1)?.msg}`);
    const windowS = Number(to.at - from.at) / 1e9;
    const exit = await d.stop();
    if (exit.code !== 0)
      throw new Error(
        `the daemon ended with ${exit.code ?? exit.signal}:\n${d.stderr().slice(-2000)}`,
      );
    return {
      cpu_s_per_hour: Math.round(((to.ns - from.ns) / 1e9) * (3600 / windowS) * 100) / 100,
      window_s: Math.round(windowS),
    };
  } catch (error) {
    d.kill();
    throw error;
  } finally {
    await api.sim.close();
    await slack.close();
    rmSync(api.dataDir, { recursive: true, force: true });
  }
}
