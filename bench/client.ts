/**
 * The API client's cost: parsing and normalising notices (the per-record work every sync
 * pays), and walking every page of the simulator over loopback HTTP.
 */

import { simulatorDefaults, startSimulator } from '../src/simulator/index.js';
import { PipelineApiClient } from '../src/upstream/client.js';
import { parseRecords } from '../src/upstream/records.js';
import { NoticeSchema } from '../src/upstream/schemas.js';
import { ManualClock } from '../test/support/clock.js';
import { wireNotice } from './fixtures.js';

const RECORDS = 100_000;

/** Figures: parse rate (records/s) and a full loopback walk (pages/s, notices/s). */
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
  const api = new PipelineApiClient({
    baseUrl: sim.url,
    user: premium.username,
    key: premium.key,
    rateLimit: { minTimeMs: 0 },
  });
  let pages = 0;
  let notices = 0;
  const t1 = performance.now();
  for await (const page of api.noticePages()) {
    pages++;
    notices += page.data.length;
  }
  const walkMs = performance.now() - t1;
  await api.close();
  await sim.close();
  return {
    parse_records_per_s: Math.round(RECORDS / (parseMs / 1000)),
    walk_pages: pages,
    walk_notices: notices,
    walk_pages_per_s: Math.round(pages / (walkMs / 1000)),
    walk_notices_per_s: Math.round(notices / (walkMs / 1000)),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}
