/**
 * Ingest benchmarks.
 * - `ingest`: 100,000 notices through the real sync path (JSON text of API pages parsed
 *   and validated, upserted, classified, events built) into a fresh database, against
 *   the same rows inserted by one prepared statement in one transaction (the limit).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { Store } from '../src/store/index.js';
import { parseRecords } from '../src/upstream/records.js';
import { EnvelopeSchema, type Notice, NoticeSchema } from '../src/upstream/schemas.js';
import { wireNotice } from './fixtures.js';

const TOTAL = 100_000;
const PER_PAGE = 20;

/** The text of page `p` (0-based) as the API would send it. */
function pageText(p: number): string {
  const data = Array.from({ length: PER_PAGE }, (_, k) => wireNotice(p * PER_PAGE + k));
  return JSON.stringify({
    status: 'success',
    messages: [],
    meta: { pagination: { page_current: p + 1, per_page: PER_PAGE } },
    data,
  });
}

function freshStore(): Store {
  return Store.open(mkdtempSync(join(tmpdir(), 'pipewatch-bench-')));
}

function syncPath(): number {
  const store = freshStore();
  const context = { method: 'GET', endpoint: '/ip/notices', host: 'bench' };
  const seenAt = '2026-11-20T15:00:00Z';
  let events = 0;
  const started = performance.now();
  for (let p = 0; p < TOTAL / PER_PAGE; p++) {
    const envelope = EnvelopeSchema.parse(JSON.parse(pageText(p)));
    const { records } = parseRecords(NoticeSchema, envelope.data, context, 'data');
    const outcome = ingestNoticePage(store, records, {
      seenAt,
      baseline: false,
      alertableAfter: '2026-11-19T15:00:00Z',
      pipelines: new Set(),
      hooks: {
        notices: (e) => {
          events += e.length;
        },
      },
    });
    if (outcome.counts.new !== PER_PAGE) throw new Error('sync path lost rows');
  }
  const seconds = (performance.now() - started) / 1000;
  if (store.notices.count() !== TOTAL || events !== TOTAL) throw new Error('sync path lost rows');
  store.close();
  return TOTAL / seconds;
}

/** The limit: the same rows by one prepared INSERT in one transaction; rows per second. */
export function plainInsert(): number {
  const store = freshStore();
  const context = { method: 'GET', endpoint: '/ip/notices', host: 'bench' };
  const rows: Notice[] = [];
  for (let p = 0; p < TOTAL / PER_PAGE; p++) {
    rows.push(...parseRecords(NoticeSchema, JSON.parse(pageText(p)).data, context, 'data').records);
  }
  const fields = Object.keys(rows[0]!);
  const insert = store.db.prepare(
    `INSERT INTO notices (${fields.join(', ')}, content_hash, first_seen_at, last_seen_at, last_changed_at)
     VALUES (${fields.map((f) => `@${f}`).join(', ')}, 'x', @seen, @seen, @seen)`,
  );
  const started = performance.now();
  store.transaction(() => {
    for (const row of rows) insert.run({ ...row, seen: '2026-11-20T15:00:00Z' });
  });
  const seconds = (performance.now() - started) / 1000;
  store.close();
  return TOTAL / seconds;
}

/** Ingest figures. */
export async function ingestBench(): Promise<Record<string, number>> {
  // The sync path first, streaming page by page, so the peak memory is its own.
  const rate = syncPath();
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  const limit = plainInsert();
  return {
    rows_per_s: Math.round(rate),
    limit_rows_per_s: Math.round(limit),
    ratio: Math.round((rate / limit) * 100) / 100,
    peak_rss_mb: peakRssMb,
  };
}
