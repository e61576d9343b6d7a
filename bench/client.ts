/**
 * The API client's cost: parsing and normalising notices (the per-record work every sync
 * pays), and walking the simulator's pages over loopback HTTP twice: with the rate
 * limiter off, for the client's own cost, and at the pacing a user gets by default.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApi } from '../src/cli/api-target.js';
import { CliContext } from '../src/cli/context.js';
import { simulatorDefaults, startSimulator } from '../src/simulator/index.js';
import { PipelineApiClient } from '../src/upstream/client.js';
import { parseRecords } from '../src/upstream/records.js';
import { NoticeSchema } from '../src/upstream/schemas.js';
import { ManualClock } from '../test/support/clock.js';
import { wireNotice } from './fixtures.js';

const RECORDS = 100_000;
const RUNS = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Pages of the walk at the default rate: some ten seconds at two requests a second. */
const DEFAULT_RATE_PAGES = 20;

interface Walk {
  pages: number;
  notices: number;
  ms: number;
}

/** Walks the notice listing of `api` from page 1, `maxPages` at most. */
async function walk(api: PipelineApiClient, maxPages?: number): Promise<Walk> {
  let pages = 0;
  let notices = 0;
  const started = performance.now();
  for await (const page of api.noticePages(maxPages === undefined ? {} : { maxPages })) {
    pages++;
    notices += page.data.length;
  }
  return { pages, notices, ms: performance.now() - started };
}

/**
 * The client as a command builds it from the configuration: every variable at its default
 * (`PIPEWATCH_API_RATE`, `PIPEWATCH_API_CONCURRENCY` among them), only the API's address
 * and credentials set.
 */
async function defaultClient(url: string, user: string, key: string) {
  const ctx = new CliContext({
    stdout: process.stdout,
    stderr: process.stderr,
    env: {
      PIPEWATCH_API_URL: url,
      PIPEWATCH_API_USER: user,
      PIPEWATCH_API_KEY: key,
      LOG_LEVEL: 'silent',
    },
    // An empty directory: no `.env` there may change a default.
    cwd: mkdtempSync(join(tmpdir(), 'pipewatch-bench-')),
    signal: new AbortController().signal,
  });
  return openApi(ctx);
}

/**
 * Figures, each the median of `RUNS` runs with its spread (`…_spread`):
 * - `parse_records_per_s`: records a second through the notice schema;
 * - `walk_pages`, `walk_notices`, `walk_pages_per_s_without_rate_limit`,
 *   `walk_notices_per_s_without_rate_limit`: a walk of every page with the rate limiter
 *   off (no gap between requests): the client's own cost, not what a user gets;
 * - `walk_pages_default_rate`, `walk_s_default_rate`, `walk_pages_per_s_default_rate`,
 *   `walk_notices_per_s_default_rate`: a walk of the first `DEFAULT_RATE_PAGES` pages by
 *   the client a command builds with the default configuration (`PIPEWATCH_API_RATE`
 *   on), paced as a user gets it;
 * - `peak_rss_mb`: the process's peak.
 */
export async function clientBench(): Promise<Record<string, number>> {
  const items = Array.from({ length: RECORDS }, (_, i) => wireNotice(i));
  const context = { method: 'GET', endpoint: '/ip/notices', host: 'bench' };
  parseRecords(NoticeSchema, items.slice(0, 2_000), context, 'data');
  const parse: number[] = [];
  const unlimited: Walk[] = [];
  const paced: Walk[] = [];
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    const { records } = parseRecords(NoticeSchema, items, context, 'data');
    parse.push(RECORDS / ((performance.now() - t0) / 1000));
    if (records.length !== RECORDS) throw new Error('parse lost records');

    const start = new Date('2026-11-20T15:00:00Z');
    const sim = await startSimulator({ seed: 1, startAt: start, clock: new ManualClock(start) });
    const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
    const unthrottled = new PipelineApiClient({
      baseUrl: sim.url,
      user: premium.username,
      key: premium.key,
      rateLimit: { minTimeMs: 0 },
    });
    unlimited.push(await walk(unthrottled));
    await unthrottled.close();

    const target = await defaultClient(sim.url, premium.username, premium.key);
    const walked = await walk(target.client, DEFAULT_RATE_PAGES);
    await target.close();
    await sim.close();
    if (walked.pages !== DEFAULT_RATE_PAGES) throw new Error('the paced walk ended early');
    paced.push(walked);
  }
  const perS = (w: { ms: number }, n: number) => n / (w.ms / 1000);
  const figures: Record<string, number> = {};
  const put = (key: string, xs: number[], digits = 0) => {
    const f = 10 ** digits;
    figures[key] = Math.round(median(xs) * f) / f;
    figures[`${key}_spread`] = Math.round((Math.max(...xs) - Math.min(...xs)) * f) / f;
  };
  put('parse_records_per_s', parse);
  figures.walk_pages = unlimited[0]!.pages;
  figures.walk_notices = unlimited[0]!.notices;
  put(
    'walk_pages_per_s_without_rate_limit',
    unlimited.map((w) => perS(w, w.pages)),
  );
  put(
    'walk_notices_per_s_without_rate_limit',
    unlimited.map((w) => perS(w, w.notices)),
  );
  figures.walk_pages_default_rate = DEFAULT_RATE_PAGES;
  put(
    'walk_s_default_rate',
    paced.map((w) => w.ms / 1000),
    1,
  );
  put(
    'walk_pages_per_s_default_rate',
    paced.map((w) => perS(w, w.pages)),
    2,
  );
  put(
    'walk_notices_per_s_default_rate',
    paced.map((w) => perS(w, w.notices)),
  );
  figures.runs = RUNS;
  figures.peak_rss_mb = Math.round(process.resourceUsage().maxRSS / 1024);
  return figures;
}
