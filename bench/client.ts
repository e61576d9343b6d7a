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
 * Figures:
 * - `parse_records_per_s`: records a second through the notice schema;
 * - `walk_pages`, `walk_notices`, `walk_pages_per_s`, `walk_notices_per_s`: a walk of every
 *   page with the rate limiter off (no gap between requests), the client's own cost;
 * - `walk_pages_default_rate`, `walk_s_default_rate`, `walk_pages_per_s_default_rate`,
 *   `walk_notices_per_s_default_rate`: a walk of the first `DEFAULT_RATE_PAGES` pages by
 *   the client a command builds with the default configuration, paced as a user gets it;
 * - `peak_rss_mb`: the process's peak.
 */
export async function clientBench(): Promise<Record<string, number>> {
  const items = Array.from({ length: RECORDS }, (_, i) => wireNotice(i));
  const context = { method: 'GET', endpoint: '/ip/notices', host: 'bench' };
  parseRecords(NoticeSchema, items.slice(0, 2_000), context, 'data');
  const t0 = performance.now();
  const { records } = parseRecords(NoticeSchema, items, context, 'data');
  const parseMs = performance.now() - t0;
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
  const full = await walk(unthrottled);
  await unthrottled.close();

  const target = await defaultClient(sim.url, premium.username, premium.key);
  const paced = await walk(target.client, DEFAULT_RATE_PAGES);
  await target.close();
  await sim.close();
  if (paced.pages !== DEFAULT_RATE_PAGES) throw new Error('the paced walk ended early');
  return {
    parse_records_per_s: Math.round(RECORDS / (parseMs / 1000)),
    walk_pages: full.pages,
    walk_notices: full.notices,
    walk_pages_per_s: Math.round(full.pages / (full.ms / 1000)),
    walk_notices_per_s: Math.round(full.notices / (full.ms / 1000)),
    walk_pages_default_rate: paced.pages,
    walk_s_default_rate: Math.round(paced.ms / 100) / 10,
    walk_pages_per_s_default_rate: Math.round((paced.pages / (paced.ms / 1000)) * 100) / 100,
    walk_notices_per_s_default_rate: Math.round(paced.notices / (paced.ms / 1000)),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}
