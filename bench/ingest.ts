/**
 * Ingest benchmarks.
 * - `ingest`: 100,000 parsed notices stored page by page through the sync's ingest step
 *   (upserted, classified, events built) into a fresh database, on the asynchronous store
 *   as the daemon stores them, against the same parsed rows inserted by one prepared
 *   statement in one transaction (the limit). The same step on PostgreSQL beside it
 *   (`postgres.ts`), over the first `POSTGRES_TOTAL` of the same notices.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import type { AsyncStore } from '../src/store/async-store.js';
import { Store } from '../src/store/index.js';
import { encodeBody, TEXT_FIELDS } from '../src/store/notice-body.js';
import { parseRecords } from '../src/upstream/records.js';
import { EnvelopeSchema, type Notice, NoticeSchema } from '../src/upstream/schemas.js';
import { wireNotice } from './fixtures.js';
import { median } from './median.js';
import { type BenchServer, benchPostgres } from './postgres.js';

const TOTAL = 100_000;
/**
 * Notices a PostgreSQL round stores: each page's commit waits for the server's WAL on
 * disk, so a round of all 100,000 would take minutes; its figures are rates a second.
 */
export const POSTGRES_TOTAL = 10_000;
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
  rows = TOTAL,
): Promise<Spent> {
  const timing = new Timing(wire);
  for (let p = 0; p < rows / PER_PAGE; p++) await store(timing.page(p));
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

/**
 * Rows a second of wall time and of CPU time, of `rows` stored in `spent`; with
 * `serverCpuSeconds`, what a database server's processes spent meanwhile, also of the
 * two together.
 */
export function rates(rows: number, spent: Spent, serverCpuSeconds?: number): Rates {
  return {
    rate: rows / spent.seconds,
    cpu: rows / spent.cpuSeconds,
    ...(serverCpuSeconds === undefined
      ? {}
      : { totalCpu: rows / (spent.cpuSeconds + serverCpuSeconds) }),
  };
}

/**
 * Rows a second: of wall time (`rate`), of this process's CPU time (`cpu`), and of this
 * process's and the database server's together (`totalCpu`), when the server is apart.
 */
export interface Rates {
  rate: number;
  cpu: number;
  totalCpu?: number;
}

/**
 * A fresh, empty database of one kind as the asynchronous store, for one round: its store,
 * how many rows it stores per round, the CPU seconds its server has spent so far (none on
 * SQLite, which works in this process), and how to remove it.
 */
export interface BenchDatabase {
  store: AsyncStore;
  rows: number;
  serverCpuSeconds(): number | undefined;
  dispose(): Promise<void>;
}

/** Makes a fresh database for each round. */
export type BenchDatabases = () => Promise<BenchDatabase>;

/** Fresh SQLite databases in files (`freshStore`), each round storing all the notices. */
export const sqliteDatabases: BenchDatabases = async () => {
  const store = freshStore();
  return {
    store: asyncStoreOf(store),
    rows: TOTAL,
    serverCpuSeconds: () => undefined,
    dispose: async () => store.dispose(),
  };
};

/** Fresh databases on `server`, each round storing the first `POSTGRES_TOTAL` notices. */
export function postgresDatabases(server: BenchServer): BenchDatabases {
  return async () => {
    const { store, dispose } = await server.store();
    return {
      store,
      rows: POSTGRES_TOTAL,
      serverCpuSeconds: () => server.serverCpuSeconds(),
      dispose,
    };
  };
}

/**
 * Runs `body` over a fresh database of `open`: its rates, and whatever `body` found; the
 * database removed after. Where the server is apart, its CPU time over all of `body` is
 * counted (its checks after storing too, a few queries: the server idles while pages are
 * made).
 */
export async function timedOn<T>(
  open: BenchDatabases,
  body: (db: BenchDatabase) => Promise<{ spent: Spent; rows: number; found: T }>,
): Promise<{ rates: Rates; found: T }> {
  const db = await open();
  try {
    const serverBefore = db.serverCpuSeconds();
    const { spent, rows, found } = await body(db);
    const serverAfter = db.serverCpuSeconds();
    const server =
      serverBefore === undefined || serverAfter === undefined
        ? undefined
        : serverAfter - serverBefore;
    return { rates: rates(rows, spent, server), found };
  } finally {
    await db.dispose();
  }
}

/**
 * The sync's ingest step on the asynchronous store of `open`'s databases, one
 * transaction a page as a sync stores them; rows per second.
 */
async function syncPath(open: BenchDatabases): Promise<Rates> {
  const { rates } = await timedOn(open, async ({ store, rows }) => ({
    spent: await storedBySync(store, rows),
    rows,
    found: undefined,
  }));
  return rates;
}

/** Stores the first `rows` notices through the sync's ingest step, page by page; the time spent. */
async function storedBySync(async: AsyncStore, rows: number): Promise<Spent> {
  const seenAt = '2026-11-20T15:00:00Z';
  let events = 0;
  const spent = await secondsStoringAsync(
    async (records) => {
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
    },
    wireNotice,
    rows,
  );
  if ((await async.notices.count()) !== rows || events !== rows)
    throw new Error('sync path lost rows');
  return spent;
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
 *   the machine's cores moves less; `ratio_cpu`, `ratio_page_commits_cpu`: the two ratios
 *   by CPU time;
 * - `peak_rss_mb`: the process's peak after the first run of the sync side, which streams
 *   page by page;
 * - `postgres_…`: the sync's ingest step on PostgreSQL (see `inRounds`).
 * Each figure is the median of `ROUNDS` rounds (`inRounds`).
 */
export async function ingestBench(): Promise<Record<string, number | string>> {
  let peakRssMb = 0;
  const figures = await inRounds(
    async () => {
      const rates = await syncPath(sqliteDatabases);
      peakRssMb ||= Math.round(process.resourceUsage().maxRSS / 1024);
      return rates;
    },
    wireNotice,
    (server) => syncPath(postgresDatabases(server)),
  );
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
 *
 * With `postgres`, the same side on PostgreSQL runs `ROUNDS` times after them, on a
 * server started only then (`benchPostgres`), so the SQLite figures are taken as they
 * were before there was a PostgreSQL side: no server idles beside them, and no round of
 * it runs between a side and its limits. It gives `postgres_rows_per_s`,
 * `postgres_cpu_rows_per_s` (this process's CPU) and, when the
 * server is this machine's, `postgres_total_cpu_rows_per_s` (this process's and the
 * server's together, which compares with SQLite's `cpu_rows_per_s`: SQLite works inside
 * the process), each with its spread over the rounds (highest less lowest);
 * `postgres_over_sqlite` and `postgres_over_sqlite_cpu`, the medians of the ratios of
 * wall rates and of CPU rates (total over `cpu_rows_per_s`), round by round;
 * `postgres_rows`, the notices a round stores there, and `postgres_server`, which server
 * and settings.
 */
export async function inRounds(
  side: () => Promise<Rates>,
  wire: WireNotice = wireNotice,
  postgres?: (server: BenchServer) => Promise<Rates>,
): Promise<Record<string, number | string>> {
  const rounds: Array<{ side: Rates; one: Rates; page: Rates; postgres?: Rates }> = [];
  for (let r = 0; r < ROUNDS; r++)
    rounds.push({
      side: await side(),
      one: plainInsert('one', wire),
      page: plainInsert('page', wire),
    });
  let described: string | undefined;
  if (postgres) {
    const server = await benchPostgres();
    try {
      described = server.described;
      for (const round of rounds) round.postgres = await postgres(server);
    } finally {
      await server.stop();
    }
  }
  const of = (f: (r: (typeof rounds)[number]) => number) => median(rounds.map(f));
  const ratio = (f: (r: (typeof rounds)[number]) => number) => Math.round(of(f) * 100) / 100;
  const figures: Record<string, number | string> = {
    rows_per_s: Math.round(of((r) => r.side.rate)),
    limit_rows_per_s: Math.round(of((r) => r.one.rate)),
    ratio: ratio((r) => r.side.rate / r.one.rate),
    limit_page_commits_rows_per_s: Math.round(of((r) => r.page.rate)),
    ratio_page_commits: ratio((r) => r.side.rate / r.page.rate),
    cpu_rows_per_s: Math.round(of((r) => r.side.cpu)),
    limit_cpu_rows_per_s: Math.round(of((r) => r.one.cpu)),
    limit_page_commits_cpu_rows_per_s: Math.round(of((r) => r.page.cpu)),
    ratio_cpu: ratio((r) => r.side.cpu / r.one.cpu),
    ratio_page_commits_cpu: ratio((r) => r.side.cpu / r.page.cpu),
  };
  if (!postgres) return figures;
  const pg = rounds.map((r) => r.postgres!);
  const withSpread = (name: string, xs: number[]) => {
    figures[name] = Math.round(median(xs));
    figures[`${name}_spread`] = Math.round(Math.max(...xs) - Math.min(...xs));
  };
  withSpread(
    'postgres_rows_per_s',
    pg.map((p) => p.rate),
  );
  withSpread(
    'postgres_cpu_rows_per_s',
    pg.map((p) => p.cpu),
  );
  const totals = pg.map((p) => p.totalCpu);
  if (totals.every((t) => t !== undefined)) {
    withSpread('postgres_total_cpu_rows_per_s', totals);
    figures.postgres_over_sqlite_cpu = ratio((r) => r.postgres!.totalCpu! / r.side.cpu);
  }
  figures.postgres_over_sqlite = ratio((r) => r.postgres!.rate / r.side.rate);
  figures.postgres_rows = POSTGRES_TOTAL;
  figures.postgres_server = described ?? '';
  return figures;
}
