/**
 * Ingest benchmarks.
 * - `ingest`: 100,000 parsed notices stored page by page through the sync's ingest step
 *   (upserted, classified, events built) into a fresh database, against the same parsed
 *   rows inserted by one prepared statement in one transaction (the limit).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { Store } from '../src/store/index.js';
import { encodeBody, TEXT_FIELDS } from '../src/store/notice-body.js';
import { parseRecords } from '../src/upstream/records.js';
import { EnvelopeSchema, type Notice, NoticeSchema } from '../src/upstream/schemas.js';
import { wireNotice } from './fixtures.js';

const TOTAL = 100_000;
const PER_PAGE = 20;

type Statement = ReturnType<Store['db']['prepare']>;

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

/**
 * Runs `store` over every page of the benchmark's notices, inside `around` when given (a
 * transaction, say), and returns the seconds spent apart from making the pages. Each page
 * is generated as the API's JSON text, parsed and validated before `store` sees it, and
 * that preparation is left out of the time (the client benchmark times parsing on its
 * own), so two callers differ only by what they do with the same parsed rows.
 */
function secondsStoring(
  store: (page: Notice[]) => void,
  around: (body: () => void) => void = (body) => body(),
): number {
  const context = { method: 'GET', endpoint: '/ip/notices', host: 'bench' };
  let preparing = 0;
  const started = performance.now();
  around(() => {
    for (let p = 0; p < TOTAL / PER_PAGE; p++) {
      const before = performance.now();
      const envelope = EnvelopeSchema.parse(JSON.parse(pageText(p)));
      const { records } = parseRecords(NoticeSchema, envelope.data, context, 'data');
      preparing += performance.now() - before;
      store(records);
    }
  });
  return (performance.now() - started - preparing) / 1000;
}

/** The sync's ingest step, one transaction a page as a sync stores them; rows per second. */
function syncPath(): number {
  const store = freshStore();
  const seenAt = '2026-11-20T15:00:00Z';
  let events = 0;
  const seconds = secondsStoring((records) => {
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
  });
  if (store.notices.count() !== TOTAL || events !== TOTAL) throw new Error('sync path lost rows');
  store.close();
  return TOTAL / seconds;
}

/**
 * The limit: the same parsed rows, their texts compressed as the store keeps them, by one
 * prepared INSERT, their generation and parsing left out as on the sync side; rows per
 * second, commits included. `transactions` says how many commits: `one` for all the rows
 * (the ceiling, SQLite's own speed), or one a `page`, as the sync must commit to keep
 * each page it read.
 */
export function plainInsert(transactions: 'one' | 'page' = 'one'): number {
  const store = freshStore();
  let insert: Statement | undefined;
  const seconds = secondsStoring(
    (records) => {
      insert ??= preparedInsert(store, records[0]!);
      const rows = () => {
        for (const row of records)
          insert!.run({ ...row, body: encodeBody(row), seen: '2026-11-20T15:00:00Z' });
      };
      if (transactions === 'page') store.transaction(rows);
      else rows();
    },
    (body) => (transactions === 'one' ? store.transaction(body) : body()),
  );
  if (store.notices.count() !== TOTAL) throw new Error('plain insert lost rows');
  store.close();
  return TOTAL / seconds;
}

/**
 * A plain INSERT of a notice's fields as they come, in the form the store keeps them (the
 * three texts compressed into one body, `notice-body.ts`), with its bookkeeping columns.
 */
function preparedInsert(store: Store, sample: Notice): Statement {
  const texts = new Set<string>(TEXT_FIELDS);
  const fields = Object.keys(sample).filter((f) => !texts.has(f));
  return store.db.prepare(
    `INSERT INTO notices (${fields.join(', ')}, notice, html, mobile, body, content_hash, first_seen_at, last_seen_at, last_changed_at)
     VALUES (${fields.map((f) => `@${f}`).join(', ')}, '', '', '', @body, 'x', @seen, @seen, @seen)`,
  );
}

/**
 * Ingest figures, both sides over the same 100,000 notices, each page generated as API
 * JSON text, parsed and validated outside the timed part:
 * - `rows_per_s`: rows a second through the sync's ingest step (`ingestNoticePage`: upsert
 *   with content hashing, classification, events to the hooks, one transaction a page);
 * - `limit_rows_per_s`: rows a second by one prepared INSERT of the same rows in one
 *   transaction, its commit included; `ratio`: the first over it;
 * - `limit_page_commits_rows_per_s`: the same INSERT committing once a page, as the sync
 *   does; `ratio_page_commits`: the first over it, what the ingest step costs over a plain
 *   insert that keeps each page as it comes;
 * - `peak_rss_mb`: the process's peak after the sync side, which streams page by page.
 */
export async function ingestBench(): Promise<Record<string, number>> {
  const rate = syncPath();
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  return { rows_per_s: Math.round(rate), ...againstLimits(rate), peak_rss_mb: peakRssMb };
}

/** `rate` against both plain-insert limits: the limits and the ratios. */
export function againstLimits(rate: number): Record<string, number> {
  const one = plainInsert('one');
  const page = plainInsert('page');
  const ratio = (limit: number) => Math.round((rate / limit) * 100) / 100;
  return {
    limit_rows_per_s: Math.round(one),
    ratio: ratio(one),
    limit_page_commits_rows_per_s: Math.round(page),
    ratio_page_commits: ratio(page),
  };
}
