/**
 * `idle_cpu`: the CPU time the daemon burns with nothing new to do, as CPU-seconds an
 * hour. `pipewatch run` is started as a process as users start it (`npm run build`, then
 * `dist/main.js` by its first line, as `npx pipewatch run` does) against the simulator,
 * with one rule alerting a Slack channel of the Slack fake (alerts only: no app), in a
 * fresh data directory. It waits for the daemon's HTTP
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
 * coarse for a figure under one second an hour over a minute. Linux only.
 */
import { startDaemon } from '../test/fakes/daemon-process.js';
import { buildDist } from './built.js';
import { cpuNanos, feedsDone, idleUpstream, poll, quiet, sleep, WITHIN_MS } from './idle-daemon.js';

const WINDOW_MS = 60_000;
const SETTLE_MS = 60_000;

/** The `idle_cpu` figures. */
export async function idleCpuBench(): Promise<Record<string, number>> {
  const upstream = await idleUpstream();
  buildDist();
  const d = startDaemon(upstream.env, { program: 'executable' });
  try {
    await d.http;
    await poll("every feed's first run", () => feedsDone(d, upstream.dataDir), WITHIN_MS);
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
    await upstream.close();
  }
}
