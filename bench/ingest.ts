/**
 * Ingest benchmarks.
 * - `ingest`: 100,000 parsed notices stored page by page through the sync's ingest step
 *   (upserted, classified, events built) into a fresh database, on the asynchronous store
 *   as the daemon stores them, against the same parsed rows inserted by one prepared
 *   statement in one transaction (the limit).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { encodeBody, TEXT_FIELDS } from '../src/store/notice-body.js';
import { parseRecords } from '../src/upstream/records.js';
import { EnvelopeSchema, type Notice, NoticeSchema } from '../src/upstream/schemas.js';
import { wireNotice } from './fixtures.js';

const TOTAL = 100_000;
const PER_PAGE = 20;

type Statement = ReturnType<Store['db']['prepare']>;

/** The `i`-th notice as the API sends it. */
export type WireNotice = (i: number) => ReturnType<typeof wireNotice>;

/** The text of page `p` (0-based) as the API would send it. */
function pageText(p: number, wire: WireNotice): string {
  const data = Array.from({ length: PER_PAGE }, (_, k) => wire(p * PER_PAGE + k));
  return JSON.stringify({
    status: 'success',
    messages: [],
    meta: { pagination: { page_current: p + 1, per_page: PER_PAGE } },
    data,
  });
}

/** A store in a new directory, which closing it with `dispose` removes. */
export function freshStore(): Store & { dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-'));
  const store = Store.open(dir);
  return Object.assign(store, {
    dispose() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/** What storing the benchmark's notices took: seconds of wall time and of this process's CPU. */
export interface Spent {
  seconds: number;
  cpuSeconds: number;
}

/** Seconds of this process's CPU, user and system, since it started. */
const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/**
 * Runs `store` over every page of the benchmark's notices (`wire`), inside `around` when
 * given (a transaction, say), and returns the time spent apart from making the pages, as
 * wall time and as CPU time: on a machine whose cores other work shares, the CPU time
 * moves less with that work. Each page is generated as the API's JSON text, parsed and
 * validated just before `store` sees it, as a sync reads a page and stores it, and that
 * preparation is left out of the time (the client benchmark times parsing on its own). So
 * two callers differ only by what they do with the same parsed rows, and neither holds
 * the others in memory.
 */
export function secondsStoring(
  store: (page: Notice[]) => void,
  around: (body: () => void) => void = (body) => body(),
  wire: WireNotice = wireNotice,
): Spent {
  const timing = new Timing(wire);
  around(() => {
    for (let p = 0; p < PAGES; p++) store(timing.page(p));
  });
  return timing.spent();
}

/**
 * `secondsStoring` for a `store` that answers with a Promise (the asynchronous store's
 * callers), each page awaited before the next is made: timed the same way.
 */
export async function secondsStoringAsync(
  store: (page: Notice[]) => Promise<void>,
  wire: WireNotice = wireNotice,
): Promise<Spent> {
  const timing = new Timing(wire);
  for (let p = 0; p < PAGES; p++) await store(timing.page(p));
  return timing.spent();
}

const PAGES = TOTAL / PER_PAGE;

/** The pages of one run, each made just before it is stored, and the time apart from making them. */
class Timing {
  private readonly context = { method: 'GET', endpoint: '/ip/notices', host: 'bench' };
  private preparing = 0;
  private preparingCpu = 0;
  private readonly started = performance.now();
  private readonly startedCpu = cpuNow();

  constructor(private readonly wire: WireNotice) {}

  /** Page `p`'s rows, generated as the API's JSON text, parsed and validated. */
  page(p: number): Notice[] {
    const before = performance.now();
    const beforeCpu = cpuNow();
    const envelope = EnvelopeSchema.parse(JSON.parse(pageText(p, this.wire)));
    const { records } = parseRecords(NoticeSchema, envelope.data, this.context, 'data');
    this.preparing += performance.now() - before;
    this.preparingCpu += cpuNow() - beforeCpu;
    return records;
  }

  /** What storing took since this was made, apart from making the pages. */
  spent(): Spent {
    return {
      seconds: (performance.now() - this.started - this.preparing) / 1000,
      cpuSeconds: cpuNow() - this.startedCpu - this.preparingCpu,
    };
  }
}

/** Rows a second of wall time and of CPU time, of `rows` stored in `spent`. */
export function rates(rows: number, spent: Spent): Rates {
  return { rate: rows / spent.seconds, cpu: rows / spent.cpuSeconds };
}

/** Rows a second: of wall time (`rate`) and of this process's CPU time (`cpu`). */
export interface Rates {
  rate: number;
  cpu: number;
}

/**
 * The sync's ingest step on the asynchronous store, one transaction a page as a sync
 * stores them; rows per second.
 */
async function syncPath(): Promise<Rates> {
  const store = freshStore();
  const async = asyncStoreOf(store);
  const seenAt = '2026-11-20T15:00:00Z';
  let events = 0;
  const spent = await secondsStoringAsync(async (records) => {
    const outcome = await ingestNoticePage(async, records, {
      seenAt,
      baseline: false,
      alertableAfter: '2026-11-19T15:00:00Z',
      pipelines: new Set(),
      hooks: {
        notices: async (e) => {
          events += e.length;
        },
      },
    });
    if (outcome.counts.new !== PER_PAGE) throw new Error('sync path lost rows');
  });
  if (store.notices.count() !== TOTAL || events !== TOTAL) throw new Error('sync path lost rows');
  store.dispose();
  return rates(TOTAL, spent);
}

/**
 * The limit: the same parsed rows, their texts compressed as the store keeps them, by one
 * prepared INSERT, their generation and parsing left out as on the sync side; rows per
 * second, commits included. `transactions` says how many commits: `one` for all the rows
 * (the ceiling, SQLite's own speed), or one a `page`, as the sync must commit to keep
 * each page it read.
 */
export function plainInsert(
  transactions: 'one' | 'page' = 'one',
  wire: WireNotice = wireNotice,
): Rates {
  const store = freshStore();
  let insert: Statement | undefined;
  const spent = secondsStoring(
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
    wire,
  );
  if (store.notices.count() !== TOTAL) throw new Error('plain insert lost rows');
  store.dispose();
  return rates(TOTAL, spent);
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
 * - `rows_per_s`: rows a second through the sync's ingest step (`ingestNoticePage` on the
 *   asynchronous store: upsert with content hashing, classification, events to the hooks,
 *   one transaction a page);
 * - `limit_rows_per_s`: rows a second by one prepared INSERT of the same rows in one
 *   transaction, its commit included; `ratio`: the first over it;
 * - `limit_page_commits_rows_per_s`: the same INSERT committing once a page, as the sync
 *   does; `ratio_page_commits`: the first over it, what the ingest step costs over a plain
 *   insert that keeps each page as it comes;
 * - `cpu_rows_per_s`, `limit_cpu_rows_per_s`, `limit_page_commits_cpu_rows_per_s`: the
 *   same three rates by this process's CPU time instead of wall time, which other work on
 *   the machine's cores moves less;
 * - `peak_rss_mb`: the process's peak after the first run of the sync side, which streams
 *   page by page.
 * Each figure is the median of `ROUNDS` rounds (`inRounds`).
 */
export async function ingestBench(): Promise<Record<string, number>> {
  let peakRssMb = 0;
  const figures = await inRounds(async () => {
    const rates = await syncPath();
    peakRssMb ||= Math.round(process.resourceUsage().maxRSS / 1024);
    return rates;
  });
  return { ...figures, peak_rss_mb: peakRssMb };
}

/** How many times `inRounds` runs each side. */
const ROUNDS = 5;

/**
 * Runs `side` (rows a second) and both plain-insert limits of the notices `wire` gives,
 * one after another, `ROUNDS` times, so that a change in the machine's speed falls on
 * the three alike: runs of the same limit differ by up to a fifth on this kind of shared
 * machine. Gives the median of each rate, and the median of each round's ratios, each
 * taken between runs a few seconds apart; and the median of each rate by CPU time.
 */
export async function inRounds(
  side: () => Promise<Rates>,
  wire: WireNotice = wireNotice,
): Promise<Record<string, number>> {
  const rounds: Array<{ side: Rates; one: Rates; page: Rates }> = [];
  for (let r = 0; r < ROUNDS; r++)
    rounds.push({
      side: await side(),
      one: plainInsert('one', wire),
      page: plainInsert('page', wire),
    });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const of = (f: (r: (typeof rounds)[number]) => number) => median(rounds.map(f));
  const ratio = (f: (r: (typeof rounds)[number]) => number) => Math.round(of(f) * 100) / 100;
  return {
    rows_per_s: Math.round(of((r) => r.side.rate)),
    limit_rows_per_s: Math.round(of((r) => r.one.rate)),
    ratio: ratio((r) => r.side.rate / r.one.rate),
    limit_page_commits_rows_per_s: Math.round(of((r) => r.page.rate)),
    ratio_page_commits: ratio((r) => r.side.rate / r.page.rate),
    cpu_rows_per_s: Math.round(of((r) => r.side.cpu)),
    limit_cpu_rows_per_s: Math.round(of((r) => r.one.cpu)),
    limit_page_commits_cpu_rows_per_s: Math.round(of((r) => r.page.cpu)),
  };
}
