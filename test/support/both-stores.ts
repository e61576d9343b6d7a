/**
 * The store's two implementations side by side, for suites that hold both to one
 * behaviour: SQLite (a fresh database in memory, its repositories' answers awaited as
 * they are) and PostgreSQL (a fresh database on the test server, migrated). A suite
 * writes each case once, `await`s every call, and runs it on each.
 *
 *     describe.each(STORES)('%s', (_, open) => { it('…', async () => { const s = await open(); … }) });
 */

import type pg from 'pg';
import { afterAll } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/index.js';
import { connectPostgres } from '../../src/store/postgres/connect.js';
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

async function openPostgres(): Promise<Opened> {
  const { url, name } = await createTestDatabase();
  const pool = await connectPostgres(url);
  await migratePostgres(pool, name);
  closing.push(async () => {
    await pool.end();
    await dropTestDatabase(name);
  });
  return { kind: 'postgres', pool };
}

/** Each implementation, by name, and how to open a fresh database of it. */
export const STORES: Array<[string, () => Promise<Opened>]> = [
  ['sqlite', openSqlite],
  ['postgres', openPostgres],
];
