/**
 * `outbox`: what the outbox itself costs, on SQLite and on PostgreSQL, apart from any
 * channel. Notices (`ALERTS`) each alert `TARGETS` targets: their deliveries are queued
 * (`outbox.enqueue`, one transaction a notice, as the engine decides a notice's alerts
 * in one transaction, each naming the stored notice version as the engine's do), then
 * sent without sending: read, claimed and confirmed through the calls the dispatcher
 * makes (`ready` for up to 200 targets, each delivery checked as an alert, `claim` of
 * them all in one transaction, then `markSent` of each target's rows, the targets side
 * by side as the dispatcher's lanes are), until nothing is ready.
 * - `…_enqueued_per_s`: deliveries queued a second; `…_drained_per_s`: deliveries read,
 *   claimed and marked sent a second;
 * - by wall time, by this process's CPU time (`_cpu_`) and, on PostgreSQL when its
 *   server is this machine's, by this process's and the server's CPU together
 *   (`_total_cpu_`, which compares with SQLite's `_cpu_`: SQLite works in the process).
 * Each is the median of `ROUNDS` rounds, SQLite and PostgreSQL taking turns, each on a
 * fresh database, after one uncounted round of each, with its spread (highest less
 * lowest). The notices are stored before the time starts. The PostgreSQL server and its
 * settings: `postgres.ts`.
 */
import { checkDeliveries } from '../src/alerts/outbox.js';
import type { AlertPayload } from '../src/alerts/payload.js';
import { targetKey } from '../src/domain/targets.js';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import type { UtcIso } from '../src/lib/time.js';
import type { AsyncStore } from '../src/store/async-store.js';
import { parseRecords } from '../src/upstream/records.js';
import { NoticeSchema } from '../src/upstream/schemas.js';
import { wireNotice } from './fixtures.js';
import {
  type BenchDatabase,
  type BenchDatabases,
  postgresDatabases,
  type Rates,
  rates,
  sqliteDatabases,
} from './ingest.js';
import { median } from './median.js';
import { benchPostgres } from './postgres.js';

/**
 * Notices that alert, each to every target, on each database: SQLite queues 100,000
 * deliveries in about a second, so fewer would be timed too short to be steady, and
 * PostgreSQL a few thousand a second, so more would take minutes; the figures are rates.
 */
const ALERTS = { sqlite: 1_000, postgres: 200 } as const;
const TARGETS = 100;
const ROUNDS = 5;
const DECIDED_AT = '2026-11-20T15:00:00Z' as UtcIso;
const SENT_AT = '2026-11-20T15:00:05Z' as UtcIso;

const TARGET_LIST = Array.from({ length: TARGETS }, (_, i) => ({
  kind: 'webhook' as const,
  url: `https://hooks.example.test/pipewatch/${i}`,
}));

const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/**
 * Times `body` on `db`: deliveries a second by wall time, by this process's CPU time,
 * and by this process's and the database server's together where it is apart.
 */
async function timed(
  db: BenchDatabase,
  deliveries: number,
  body: () => Promise<void>,
): Promise<Rates> {
  const server = db.serverCpuSeconds();
  const started = performance.now();
  const startedCpu = cpuNow();
  await body();
  const cpuSeconds = cpuNow() - startedCpu;
  const seconds = (performance.now() - started) / 1000;
  const serverAfter = db.serverCpuSeconds();
  return rates(
    deliveries,
    { seconds, cpuSeconds },
    server === undefined || serverAfter === undefined ? undefined : serverAfter - server,
  );
}

/** Stores the notices the alerts are about, as a baseline (no events). */
async function storeNotices(store: AsyncStore, alerts: number): Promise<void> {
  const context = { method: 'GET', endpoint: '/bench', host: 'bench' };
  const wire = Array.from({ length: alerts }, (_, i) => wireNotice(i));
  const { records } = parseRecords(NoticeSchema, wire, context, 'data');
  await ingestNoticePage(store, records, {
    seenAt: DECIDED_AT,
    baseline: true,
    alertableAfter: '2000-01-01T00:00:00Z',
    pipelines: new Set(),
  });
}

/** Queues every delivery: one transaction a notice, to every target. */
async function enqueueAll(store: AsyncStore, alerts: number): Promise<void> {
  for (let i = 0; i < alerts; i++) {
    const notice = wireNotice(i);
    // Stored as the engine stores it: the notice left out, its stored version named.
    const payload: Omit<AlertPayload, 'notice'> & { notice: null } = {
      version: 1,
      kind: 'notice',
      state: 'new',
      rule: 'bench',
      pipeline: { slug: notice.pipeline_slug, name: notice.pipeline_name },
      zone: 'America/Chicago',
      notice: null,
    };
    const json = JSON.stringify(payload);
    await store.transaction(async () => {
      for (const target of TARGET_LIST) {
        const fresh = await store.outbox.enqueue(
          `notice:${notice.id}:v1`,
          'bench',
          target,
          json,
          DECIDED_AT,
          { id: notice.id, version: 1 },
        );
        if (!fresh) throw new Error('outbox bench: a delivery was already queued');
      }
    });
  }
}

/** Reads, claims and marks sent every delivery ready, as the dispatcher does; how many. */
async function drainAll(store: AsyncStore): Promise<number> {
  let drained = 0;
  for (;;) {
    const ready = await store.outbox.ready(SENT_AT, 200);
    const checked = checkDeliveries(ready.rows);
    if (ready.unreadable.length > 0 || checked.unreadable.length > 0)
      throw new Error(
        `outbox bench: unreadable deliveries: ${JSON.stringify([...ready.unreadable, ...checked.unreadable][0])}`,
      );
    if (checked.rows.length === 0) return drained;
    const byTarget = new Map<string, number[]>();
    for (const row of checked.rows) {
      const key = targetKey(row.target);
      const ids = byTarget.get(key);
      if (ids) ids.push(row.id);
      else byTarget.set(key, [row.id]);
    }
    const ids = [...byTarget.values()].flat();
    await store.transaction(() => store.outbox.claim(ids, SENT_AT));
    await Promise.all(
      [...byTarget.values()].map((targetIds) =>
        store.outbox.markSent(targetIds, SENT_AT, 'HTTP 200'),
      ),
    );
    drained += ids.length;
  }
}

/** One round on a fresh database of `open`, `alerts` notices alerting: queueing's rates, and draining's. */
async function round(
  open: BenchDatabases,
  alerts: number,
): Promise<{ enqueue: Rates; drain: Rates }> {
  const deliveries = alerts * TARGETS;
  const db = await open();
  try {
    await storeNotices(db.store, alerts);
    const enqueue = await timed(db, deliveries, () => enqueueAll(db.store, alerts));
    let drained = 0;
    const drain = await timed(db, deliveries, async () => {
      drained = await drainAll(db.store);
    });
    const counts = await db.store.outbox.counts();
    if (drained !== deliveries || counts.sent !== deliveries)
      throw new Error(`outbox bench: ${drained} drained, ${counts.sent} sent of ${deliveries}`);
    return { enqueue, drain };
  } finally {
    await db.dispose();
  }
}

/** Outbox figures: see the file's comment. */
export async function outboxBench(): Promise<Record<string, number | string>> {
  const server = await benchPostgres();
  try {
    const kinds = { sqlite: sqliteDatabases, postgres: postgresDatabases(server) };
    const rounds: Record<string, Array<{ enqueue: Rates; drain: Rates }>> = {
      sqlite: [],
      postgres: [],
    };
    // A round of each first, not counted: the code runs warm in every counted one.
    for (const [kind, open] of Object.entries(kinds))
      await round(open, ALERTS[kind as keyof typeof ALERTS]);
    for (let r = 0; r < ROUNDS; r++)
      for (const [kind, open] of Object.entries(kinds))
        rounds[kind]!.push(await round(open, ALERTS[kind as keyof typeof ALERTS]));
    const figures: Record<string, number | string> = {};
    for (const [kind, rs] of Object.entries(rounds))
      for (const step of ['enqueue', 'drain'] as const)
        for (const [by, of] of [
          ['', (r: Rates) => r.rate],
          ['_cpu', (r: Rates) => r.cpu],
          ['_total_cpu', (r: Rates) => r.totalCpu],
        ] as const) {
          const xs = rs.map((r) => of(r[step]));
          if (xs.some((x) => x === undefined)) continue;
          const values = xs as number[];
          const name = `${kind}${by}_${step === 'enqueue' ? 'enqueued' : 'drained'}_per_s`;
          figures[name] = Math.round(median(values));
          figures[`${name}_spread`] = Math.round(Math.max(...values) - Math.min(...values));
        }
    return {
      ...figures,
      sqlite_deliveries: ALERTS.sqlite * TARGETS,
      postgres_deliveries: ALERTS.postgres * TARGETS,
      targets: TARGETS,
      rounds: ROUNDS,
      postgres_server: server.described,
    };
  } finally {
    await server.stop();
  }
}
