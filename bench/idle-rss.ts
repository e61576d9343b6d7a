/**
 * `idle_rss`: the daemon's resident memory when idle. `pipewatch run` is started as a
 * process against the simulator, with the Slack fake as Slack and one rule alerting a
 * Slack channel, in a fresh data directory each time. It waits for the daemon's own words
 * (its HTTP address, its Slack credential check, and with the app "Slack app listening"),
 * then until every feed the daemon named at start has a first successful run recorded in
 * its database (read from outside, the daemon not asked), then until the process has
 * been idle for three seconds (under 1% of a core by its threads' schedstat, and no log
 * line). From then it reads VmRSS (resident now) from /proc/<pid>/status once a second
 * until it has settled, within `SETTLE_MB` for `SETTLE_MS`: a few seconds after a burst
 * of work V8's memory reducer gives back what the burst left, some 2 MiB, and the daemon
 * then stays there while nothing happens (as long as it was watched, 90 s and more).
 * That settled figure is what an idle daemon holds; the first reading, when it went
 * quiet, is kept beside it. VmHWM is the peak so far, the first cycle included. Linux
 * only.
 *
 * The program is the built one (`npm run build`), started four ways, each `ROUNDS` times
 * in turn; the figures are medians:
 *
 * - `rss_mb`, `peak_mb`: as users start it, `npx pipewatch run` or the Docker image:
 *   `dist/main.js` by its first line, with the V8 settings there. Slack is set up for
 *   alerts only (bot token, no signing secret: no app starts). `rss_mb_at_quiet`: its
 *   reading when it went quiet, before the memory reducer.
 * - `_with_app`: the same with the Slack app answering over HTTP (signing secret set).
 * - `_after_alert`: the same as `rss_mb` once it has also alerted: a matching notice is
 *   added at the simulator after the first syncs (the notice interval is 60 s for this),
 *   and the figure is read when the Slack fake has the post and the daemon is idle again.
 *   A daemon that has alerted keeps what alerting loaded: the formatting of dates by time
 *   zone (ICU) above all.
 * - `node_`: `node dist/main.js run`, without those settings.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addTranscoConstraint } from '../test/cli/daemon-steps.js';
import { type Program, startDaemon } from '../test/fakes/daemon-process.js';
import { buildDist } from './built.js';
import { feedsDone, idleUpstream, poll, quiet, WITHIN_MS } from './idle-daemon.js';

type Upstream = Awaited<ReturnType<typeof idleUpstream>>;

const ROUNDS = 3;
const SECRET = 'b3ac0a1e5d9c4f7e8a2b6c1d0e9f8a7b';

/** How one daemon is started, and whether it alerts before it is measured. */
interface Way {
  program: Program;
  app: boolean;
  alert: boolean;
}

/** How long, and within how much, VmRSS must stay to count as settled. */
const SETTLE_MS = 10_000;
const SETTLE_MB = 0.5;

/** A field of /proc/<pid>/status given in kB, in MB. */
function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) / 1024;
}

/** VmRSS once it has stayed within `SETTLE_MB` for `SETTLE_MS`, read once a second. */
async function settledRss(pid: number): Promise<number> {
  const samples: Array<{ at: number; mb: number }> = [];
  await poll(
    'resident memory to settle',
    () => {
      const now = { at: Date.now(), mb: statusMb(pid, 'VmRSS') };
      samples.push(now);
      if (now.at - samples[0]!.at < SETTLE_MS) return false;
      const window = samples.filter((s) => now.at - s.at <= SETTLE_MS).map((s) => s.mb);
      return Math.max(...window) - Math.min(...window) <= SETTLE_MB;
    },
    WITHIN_MS,
    1_000,
  );
  return samples.at(-1)!.mb;
}

/** VmRSS of an idle daemon when it went quiet and once settled, and VmHWM, in MB. */
async function idleDaemon(upstream: Upstream, way: Way) {
  const { app, alert } = way;
  const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-data-'));
  const env = {
    ...upstream.env,
    PIPEWATCH_DATA_DIR: dataDir,
    ...(app ? { SLACK_SIGNING_SECRET: SECRET } : {}),
    ...(alert ? { PIPEWATCH_NOTICES_INTERVAL: '60s' } : {}),
  };
  const d = startDaemon(env, { program: way.program });
  let figures: { rss: number; atQuiet: number; peak: number };
  try {
    await d.http;
    const said = (start: string) => d.logs().some((l) => l.msg.startsWith(start));
    await d.until('the Slack credential check', () => said('channel slack'), WITHIN_MS);
    if (app) await d.until('the Slack app', () => said('Slack app listening'), WITHIN_MS);
    await poll("every feed's first run", () => feedsDone(d, dataDir), WITHIN_MS);
    await quiet(d);
    if (alert) {
      const posted = upstream.slack.posts.length;
      addTranscoConstraint(upstream.api);
      await poll('the alert at Slack', () => upstream.slack.posts.length > posted, 2 * WITHIN_MS);
      await quiet(d);
    }
    if (said('Slack app') !== app) throw new Error(`the Slack app ${app ? "didn't" : 'did'} start`);
    const atQuiet = statusMb(d.pid, 'VmRSS');
    const rss = await settledRss(d.pid);
    figures = { rss, atQuiet, peak: statusMb(d.pid, 'VmHWM') };
  } catch (error) {
    d.kill();
    throw error;
  }
  const exit = await d.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (exit.code !== 0)
    throw new Error(
      `the daemon ended with ${exit.code ?? exit.signal}:\n${d.stderr().slice(-2000)}`,
    );
  return figures;
}

const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[xs.length >> 1]!);

/** The `idle_rss` figures. */
export async function idleRssBench(): Promise<Record<string, number>> {
  const upstream = await idleUpstream();
  buildDist();
  const ways = {
    executable: { program: 'executable', app: false, alert: false },
    withApp: { program: 'executable', app: true, alert: false },
    afterAlert: { program: 'executable', app: false, alert: true },
    node: { program: 'node', app: false, alert: false },
  } satisfies Record<string, Way>;
  type Name = keyof typeof ways;
  const runs: Record<Name, Array<{ rss: number; atQuiet: number; peak: number }>> = {
    executable: [],
    withApp: [],
    afterAlert: [],
    node: [],
  };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(ways) as Name[]) {
        runs[name].push(await idleDaemon(upstream, ways[name]));
      }
    }
    const rss = (of: Name) => median(runs[of].map((r) => r.rss));
    const peak = (of: Name) => median(runs[of].map((r) => r.peak));
    return {
      rounds: ROUNDS,
      rss_mb: rss('executable'),
      rss_mb_at_quiet: median(runs.executable.map((r) => r.atQuiet)),
      peak_mb: peak('executable'),
      rss_mb_with_app: rss('withApp'),
      peak_mb_with_app: peak('withApp'),
      rss_mb_after_alert: rss('afterAlert'),
      node_rss_mb: rss('node'),
      node_peak_mb: peak('node'),
    };
  } finally {
    await upstream.close();
  }
}
