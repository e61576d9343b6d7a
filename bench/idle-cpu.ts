/**
 * `idle`: the CPU time the daemon burns with nothing new upstream, as CPU-seconds an
 * hour. `pipewatch run` is started as a process as users start it (`npm run build`, then
 * `dist/main.js` by its first line, as `npx pipewatch run` does) against the simulator,
 * with one rule alerting a Slack channel of the Slack fake (alerts only: no app), in a
 * fresh data directory, every setting at its default. It waits for the daemon's HTTP
 * address, until every feed the daemon named at start has a first successful run
 * recorded in its database (read from outside, the daemon not asked), until the process
 * has been quiet for three seconds, and then `SETTLE_MS` (60 s) more: for about forty
 * seconds after its first sync V8 still collects and compiles in bursts (up to a fifth
 * of a second of CPU each), which would count as idle work. The daemon is never touched
 * (no scrape, no request). Then:
 * - `cpu_s_per_whole_hour`: from the end of one notice sync (its success seen in the
 *   database) to the end of the third after it: three whole poll intervals at the
 *   default schedule (up to 10 minutes each, shorter once the schedule has locked onto
 *   the simulator's refreshes; `whole_window_min` says how long), with every sync,
 *   timer and collection that falls in them, extrapolated to an hour: what the daemon costs a
 *   user in a quiet hour. `cpu_s_per_hour_interval_median` and `_spread`: the same per
 *   interval (one notice sync each), the median of the three;
 * - `cpu_s_per_hour_between_syncs`: three windows of `WINDOW_MS` (60 s) taken before
 *   those intervals, with no sync in them and nothing logged (a window with either is
 *   taken again): the floor between syncs, the median of the three, with its spread.
 *
 * CPU time is the sum of every thread's time on a CPU from /proc/<pid>/task/<tid>/
 * schedstat, in nanoseconds: utime + stime of /proc/<pid>/stat count 10 ms ticks, too
 * coarse for a figure under one second an hour over a minute. Linux only.
 */
import { NOTICES_FEED } from '../src/ingest/notice-sync.js';
import { Store } from '../src/store/index.js';
import { startDaemon } from '../test/fakes/daemon-process.js';
import { buildDist } from './built.js';
import { cpuNanos, feedsDone, idleUpstream, poll, quiet, sleep, WITHIN_MS } from './idle-daemon.js';
import { median } from './median.js';

const WINDOW_MS = 60_000;
const SETTLE_MS = 60_000;
/** Quiet windows tried before giving up: a window with a sync in it is tried again. */
const QUIET_TRIES = 12;
const QUIET_WINDOWS = 3;
const INTERVALS = 3;
/** Longest wait for the next notice sync: the default interval, 10 minutes, and a margin. */
const SYNC_WITHIN_MS = 13 * 60_000;

/** When the notice feed last succeeded, read from the database, the daemon not asked. */
function lastNoticeSync(dataDir: string): string | null {
  const store = Store.openReadonly(dataDir);
  try {
    return store.syncState.all().find((s) => s.feed === NOTICES_FEED)?.last_success_at ?? null;
  } finally {
    store.close();
  }
}

interface Reading {
  at: bigint;
  ns: number;
}

/** CPU-seconds an hour between two readings. */
const perHour = (from: Reading, to: Reading) =>
  ((to.ns - from.ns) / 1e9) * (3600 / (Number(to.at - from.at) / 1e9));

const round2 = (n: number) => Math.round(n * 100) / 100;
const spread = (xs: number[]) => round2(Math.max(...xs) - Math.min(...xs));

/** The `idle` figures. */
export async function idleCpuBench(): Promise<Record<string, number>> {
  const upstream = await idleUpstream();
  buildDist();
  const d = startDaemon(upstream.env, { program: 'executable' });
  const read = (): Reading => ({ at: process.hrtime.bigint(), ns: cpuNanos(d.pid) });
  /** Waits for the notice sync after the one recorded as `seen`; reads the CPU then. */
  const nextSync = async (seen: string | null): Promise<[Reading, string | null]> => {
    let now = seen;
    await poll(
      'the next notice sync',
      () => {
        now = lastNoticeSync(upstream.dataDir);
        return now !== seen;
      },
      SYNC_WITHIN_MS,
      500,
    );
    return [read(), now];
  };
  try {
    await d.http;
    await poll("every feed's first run", () => feedsDone(d, upstream.dataDir), WITHIN_MS);
    await quiet(d);
    await sleep(SETTLE_MS);
    const between: number[] = [];
    for (let tries = 0; between.length < QUIET_WINDOWS; tries++) {
      if (tries === QUIET_TRIES)
        throw new Error(`no ${QUIET_WINDOWS} quiet windows in ${QUIET_TRIES} tries`);
      const lines = d.logs().length;
      const synced = lastNoticeSync(upstream.dataDir);
      const from = read();
      await sleep(WINDOW_MS);
      const to = read();
      // A window with a sync in it, or anything logged, is not between syncs: another is taken.
      if (d.logs().length === lines && lastNoticeSync(upstream.dataDir) === synced)
        between.push(perHour(from, to));
    }
    let [start, seen] = await nextSync(lastNoticeSync(upstream.dataDir));
    const first = start;
    const intervals: number[] = [];
    for (let i = 0; i < INTERVALS; i++) {
      const [end, now] = await nextSync(seen);
      intervals.push(perHour(start, end));
      [start, seen] = [end, now];
    }
    const exit = await d.stop();
    if (exit.code !== 0)
      throw new Error(
        `the daemon ended with ${exit.code ?? exit.signal}:\n${d.stderr().slice(-2000)}`,
      );
    return {
      cpu_s_per_whole_hour: round2(perHour(first, start)),
      whole_window_min: Math.round(Number(start.at - first.at) / 6e10),
      cpu_s_per_hour_interval_median: round2(median(intervals)),
      cpu_s_per_hour_interval_spread: spread(intervals),
      intervals: INTERVALS,
      cpu_s_per_hour_between_syncs: round2(median(between)),
      cpu_s_per_hour_between_syncs_spread: spread(between),
      quiet_windows: QUIET_WINDOWS,
      window_s: WINDOW_MS / 1000,
    };
  } catch (error) {
    d.kill();
    throw error;
  } finally {
    await upstream.close();
  }
}
