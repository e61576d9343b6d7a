/**
 * `idle_rss`: the daemon's resident memory when idle, without and with the Slack app.
 * `pipewatch run` is started as a process (`startDaemon`, as the acceptance tests start
 * it) against the simulator, with the Slack fake as Slack and one rule alerting a Slack
 * channel: once with Slack set up for alerts only (bot token, no signing secret: no app
 * starts) and once with the Slack app answering over HTTP (signing secret set). Each
 * time, in a fresh data directory: it waits for the daemon's own words (its HTTP address,
 * its Slack credential check, and with the app "Slack app listening"), then until every
 * feed the daemon named at start has a first successful run recorded in its database
 * (read from outside, the daemon not asked), then until the process has been idle for
 * three seconds (under 1% of a core by its threads' schedstat, and no log line); then reads
 * VmRSS (resident now) and VmHWM (the peak so far, the first cycle included) from
 * /proc/<pid>/status. Three rounds alternate the two; the figures are medians.
 *
 * `rss_mb` and `peak_mb` (and `_with_app`) are of the built program as users run it
 * (`npm run build` first, then `node dist/main.js run`). The `tsx_` figures are of the
 * same daemon run from the sources under tsx, as the tests start it: the TypeScript
 * compiled in memory and tsx's loader add to both, so only their difference is the
 * app's. Linux only.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon } from '../test/fakes/daemon-process.js';
import { buildDist } from './built.js';
import { feedsDone, idleUpstream, poll, quiet, WITHIN_MS } from './idle-daemon.js';

const ROUNDS = 3;
const SECRET = 'b3ac0a1e5d9c4f7e8a2b6c1d0e9f8a7b';

/** VmRSS and VmHWM of an idle daemon, in MB. */
async function idleDaemon(env: Record<string, string>, app: boolean, built: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-data-'));
  const d = startDaemon({ ...env, PIPEWATCH_DATA_DIR: dataDir }, { built });
  let figures: { rss: number; peak: number };
  try {
    await d.http;
    const said = (start: string) => d.logs().some((l) => l.msg.startsWith(start));
    await d.until('the Slack credential check', () => said('channel slack'), WITHIN_MS);
    if (app) await d.until('the Slack app', () => said('Slack app listening'), WITHIN_MS);
    await poll("every feed's first run", () => feedsDone(d, dataDir), WITHIN_MS);
    await quiet(d);
    if (said('Slack app') !== app) throw new Error(`the Slack app ${app ? "didn't" : 'did'} start`);
    const status = readFileSync(`/proc/${d.pid}/status`, 'utf8');
    const kb = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
    figures = { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
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
  const env = upstream.env;
  const appEnv = { ...env, SLACK_SIGNING_SECRET: SECRET };
  buildDist();
  try {
    const runs = { built: [], builtApp: [], tsx: [], tsxApp: [] } as Record<
      'built' | 'builtApp' | 'tsx' | 'tsxApp',
      Array<{ rss: number; peak: number }>
    >;
    for (let round = 0; round < ROUNDS; round++) {
      runs.built.push(await idleDaemon(env, false, true));
      runs.builtApp.push(await idleDaemon(appEnv, true, true));
      runs.tsx.push(await idleDaemon(env, false, false));
      runs.tsxApp.push(await idleDaemon(appEnv, true, false));
    }
    const rss = (of: keyof typeof runs) => median(runs[of].map((r) => r.rss));
    const peak = (of: keyof typeof runs) => median(runs[of].map((r) => r.peak));
    return {
      rounds: ROUNDS,
      rss_mb: rss('built'),
      peak_mb: peak('built'),
      rss_mb_with_app: rss('builtApp'),
      peak_mb_with_app: peak('builtApp'),
      tsx_rss_mb_without_app: rss('tsx'),
      tsx_rss_mb_with_app: rss('tsxApp'),
      tsx_peak_mb_without_app: peak('tsx'),
      tsx_peak_mb_with_app: peak('tsxApp'),
    };
  } finally {
    await upstream.close();
  }
}
