/**
 * The store's two implementations side by side, for suites that hold both to one
 * behaviour: SQLite (a fresh database in memory, its repositories' answers awaited as
 * they are) and PostgreSQL (the file's database on the test server, migrated, and
 * emptied back to just migrated for each test: see `sharedDatabase`). A suite
 * writes each case once, `await`s every call, and runs it on each.
 *
 *     describe.each(STORES)('%s', (_, open) => { it('…', async () => { const s = await open(); … }) });
 */

import type pg from 'pg';
import { afterAll, expect } from 'vitest';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { AsyncStore } from '../../src/store/async-store.js';
import { openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/index.js';
import { pgAsyncStore } from '../../src/store/postgres/async-store.js';
import { connectPostgres } from '../../src/store/postgres/connect.js';
import type { Fence } from '../../src/store/postgres/fence.js';
import { migratePostgres } from '../../src/store/postgres/migrate.js';
import { createTestDatabase, dropTestDatabase } from './postgres.js';

/** A fresh, migrated database of one implementation. */
export type Opened = { kind: 'sqlite'; store: Store } | { kind: 'postgres'; pool: pg.Pool };

const closing: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closing.splice(0)) await close();
});

async function openSqlite(): Promise<Opened> {
  const store = new Store(openDatabase(':memory:'));
  closing.push(async () => store.close());
  return { kind: 'sqlite', store };
}

/**
 * The file's one PostgreSQL database, migrated once, and how to bring it back to just
 * migrated. Making a database costs 0.2 to 0.8 s on a busy machine, a copy from a
 * migrated template as much; emptying every table (TRUNCATE … RESTART IDENTITY, ids from
 * 1 again) and putting back the rows the migrations wrote (the revision counters, the
 * record of migrations) costs a few milliseconds, so each test still starts on a fresh
 * schema. The tests of a file run one after the other, as they do by default; a test
 * that opens a second database gets one of its own (`ownDatabase`), not the first emptied.
 */
interface SharedDatabase {
  pool: pg.Pool;
  reset(): Promise<void>;
}

let shared: Promise<SharedDatabase> | undefined;

async function sharedDatabase(): Promise<SharedDatabase> {
  const { url, name } = await createTestDatabase();
  const pool = await connectPostgres(url);
  closing.push(async () => {
    await pool.end();
    await dropTestDatabase(name);
  });
  await migratePostgres(pool, name);
  const { rows: tables } = await pool.query<{ name: string }>(
    "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public'",
  );
  const seeded: Array<{ table: string; rows: unknown[] }> = [];
  for (const { name: table } of tables) {
    const { rows } = await pool.query<{ rows: unknown[] | null }>(
      `SELECT json_agg(t) AS rows FROM ${table} t`,
    );
    if (rows[0]?.rows) seeded.push({ table, rows: rows[0].rows });
  }
  const all = tables.map((t) => t.name).join(', ');
  return {
    pool,
    async reset() {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`TRUNCATE ${all} RESTART IDENTITY CASCADE`);
        for (const { table, rows } of seeded)
          await client.query(
            `INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1)`,
            [JSON.stringify(rows)],
          );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

/** A new database, migrated, for this test alone: the slow way, for a second one. */
async function ownDatabase(): Promise<Opened> {
  const { url, name } = await createTestDatabase();
  const pool = await connectPostgres(url);
  closing.push(async () => {
    await pool.end();
    await dropTestDatabase(name);
  });
  await migratePostgres(pool, name);
  return { kind: 'postgres', pool };
}

/** The test that last opened the shared database. */
let sharedBy: string | undefined;

async function openPostgres(): Promise<Opened> {
  const test = expect.getState().currentTestName;
  if (shared && test === sharedBy) return ownDatabase();
  sharedBy = test;
  if (shared) await (await shared).reset();
  else shared = sharedDatabase();
  return { kind: 'postgres', pool: (await shared).pool };
}

/** Each implementation, by name, and how to open a fresh database of it. */
export const STORES: Array<[string, () => Promise<Opened>]> = [
  ['sqlite', openSqlite],
  ['postgres', openPostgres],
];

/**
 * The asynchronous store on an opened database, as the daemon uses it; on PostgreSQL its
 * outbox writes are made under `fence` (none: refused, as a standby's are).
 */
export function asyncStore(
  o: Opened,
  fence: () => Fence | undefined = () => undefined,
): AsyncStore {
  return o.kind === 'sqlite' ? asyncStoreOf(o.store) : pgAsyncStore(o.pool, fence);
}

/**
 * Runs one statement written with `?` placeholders on either implementation (numbered
 * `$1`, `$2`… for PostgreSQL; so no `?` in its literals), for what a suite sets up or looks at outside the
 * repository under test (a notice a reminder names, a row made corrupt on purpose).
 * Its rows, as each driver reads them.
 */
export async function sql<R = Record<string, unknown>>(
  o: Opened,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  if (o.kind === 'sqlite') {
    const prepared = o.store.db.prepare(text);
    if (prepared.reader) return prepared.all(...values) as R[];
    prepared.run(...values);
    return [];
  }
  let n = 0;
  const numbered = text.replace(/\?/g, () => `$${++n}`);
  return (await o.pool.query(numbered, values)).rows as R[];
}

/** Inserts one row, its columns named by `row`'s keys, on either implementation. */
export async function insertRow(
  o: Opened,
  table: string,
  row: Record<string, unknown>,
): Promise<void> {
  const columns = Object.keys(row);
  await sql(
    o,
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    Object.values(row),
  );
}

/**
 * A notice as a row of `notices`, every required column filled, for the suites whose
 * statements look at notices without going through the notice store.
 */
export function noticeRow(id: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  const at = '2026-11-20T12:00:00Z';
  return {
    id,
    pipeline_id: 7,
    pipeline_name: 'Transco',
    pipeline_slug: 'transco',
    pipeline_url: 'https://example.test/transco',
    subject: `Notice ${id}`,
    identifier: `26-${id}`,
    url: `https://example.test/notices/${id}`,
    category: 'critical',
    type: 'OFO',
    status: 'active',
    notice: 'text',
    html: '<p>text</p>',
    mobile: 'text',
    posted_at: at,
    response_at: null,
    content_hash: `hash-${id}`,
    first_seen_at: at,
    last_seen_at: at,
    last_changed_at: at,
    ...over,
  };
}
