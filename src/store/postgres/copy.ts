/**
 * A SQLite store copied into an empty PostgreSQL database, whole: every table the two
 * schemas share (the parity test keeps them the same), every row as it is, so that an
 * installation moving to replicas re-alerts nothing (the outbox, the notices' hashes and
 * tombstones, the rules' state go along) and loses no one's subscriptions, silences or
 * acknowledgements. All in one PostgreSQL transaction: a copy that fails leaves the
 * target as empty as it was.
 *
 * - Both schemas must be current: the source as this pipewatch migrates it (run it once
 *   first), the target is migrated here.
 * - The target must be empty: a copy over a database already in use would mix two
 *   installations' state. Its migrations' own rows (the revision counters) are replaced.
 * - Tables go parents first (SQLite's foreign keys say which), their triggers off while
 *   rows go in, so a copied row counts as what it was, not as a new change.
 * - Ids assigned by the database keep their values, and each identity sequence is moved
 *   past the highest id the source ever gave (SQLite's AUTOINCREMENT counter included), so
 *   an id is never given twice.
 * - Row counts are compared, table by table, before the copy commits.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { DatabaseError } from '../database.js';
import { MIGRATIONS } from '../migrations.js';
import { migratePostgres } from './migrate.js';
import { POSTGRES_MIGRATIONS, POSTGRES_ONLY_TABLES, POSTGRES_TABLES } from './migrations.js';
import { type Queryable, withoutNul } from './queryable.js';

/** How many rows one INSERT carries (PostgreSQL takes at most 65,535 parameters). */
const BATCH_PARAMETERS = 30_000;

/** Tables the migrations fill themselves: replaced by the source's rows. */
const SEEDED = new Set(['revisions']);

/** Rows copied, by table. */
export type CopyCounts = Record<string, number>;

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The source's tables, parents before the tables whose foreign keys name them. */
function tablesInOrder(db: Database.Database): string[] {
  const names = (
    db
      .prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as Array<{ name: string }>
  ).map((t) => t.name);
  const parents = new Map(
    names.map((name) => [
      name,
      (db.prepare(`PRAGMA foreign_key_list(${quoted(name)})`).all() as Array<{ table: string }>)
        .map((fk) => fk.table)
        .filter((parent) => parent !== name),
    ]),
  );
  const ordered: string[] = [];
  const visit = (name: string, path: Set<string>) => {
    if (ordered.includes(name)) return;
    if (path.has(name)) throw new DatabaseError(`the tables' foreign keys go round at ${name}`);
    path.add(name);
    for (const parent of parents.get(name) ?? []) visit(parent, path);
    path.delete(name);
    ordered.push(name);
  };
  for (const name of names) visit(name, new Set());
  return ordered;
}

/** The highest id the source ever gave in `table`, by its AUTOINCREMENT counter or its rows. */
function highestId(db: Database.Database, table: string): number {
  const counter = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_sequence'").get()
    ? (db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table) as
        | { seq: number }
        | undefined)
    : undefined;
  const rows = db.prepare(`SELECT max(id) AS id FROM ${quoted(table)}`).get() as {
    id: number | null;
  };
  return Math.max(counter?.seq ?? 0, rows.id ?? 0);
}

/** Copies one table's rows in batches; returns how many. */
async function copyTable(db: Database.Database, client: Queryable, table: string): Promise<number> {
  const columns = (
    db.prepare(`PRAGMA table_info(${quoted(table)})`).all() as Array<{ name: string }>
  ).map((c) => c.name);
  const perBatch = Math.max(1, Math.floor(BATCH_PARAMETERS / columns.length));
  const insert = (rows: unknown[][]) => {
    const values = rows.map(
      (_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`,
    );
    return client.query(
      `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) VALUES ${values.join(', ')}`,
      rows.flat(),
    );
  };
  let batch: unknown[][] = [];
  let copied = 0;
  const select = db.prepare(`SELECT ${columns.map(quoted).join(', ')} FROM ${quoted(table)}`);
  for (const row of select.raw().iterate() as Iterable<unknown[]>) {
    batch.push(row);
    if (batch.length === perBatch) {
      await insert(batch);
      copied += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) {
    await insert(batch);
    copied += batch.length;
  }
  return copied;
}

/** Whether `table` has a column `id` that the database assigns (an identity). */
async function identityOf(client: Queryable, table: string): Promise<string | undefined> {
  const found = await client.query<{ sequence: string | null }>(
    `SELECT pg_get_serial_sequence(quote_ident(table_name), 'id') AS sequence
       FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'id'
        AND is_identity = 'YES'`,
    [table],
  );
  return found.rows[0]?.sequence ?? undefined;
}

/**
 * Refuses a database that holds tables pipewatch never made: a `--to` naming another
 * application's database would otherwise get pipewatch's tables created beside its own.
 */
async function refuseOtherTables(pool: pg.Pool, where: string): Promise<void> {
  const client = await pool.connect();
  let rows: Array<{ name: string }>;
  try {
    ({ rows } = await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables
       WHERE schemaname = current_schema() AND NOT (tablename = ANY ($1::text[]))
       ORDER BY tablename LIMIT 4`,
      [POSTGRES_TABLES],
    ));
  } finally {
    client.release();
  }
  if (rows.length === 0) return;
  const names = rows.slice(0, 3).map((r) => r.name);
  throw new DatabaseError(
    `the PostgreSQL database ${where} holds tables pipewatch did not make (${names.join(', ')}${rows.length > 3 ? ', …' : ''}): pipewatch copies into an empty database only; give it a new one`,
  );
}

/**
 * Copies the SQLite database `source` (opened read-only, its schema current) into the
 * empty PostgreSQL database of `pool`; `where` names the target in errors (its URL shown
 * without the password). Returns the rows copied, by table.
 *
 * Every table is read within one read transaction on `source` (unless the caller holds
 * one already): one snapshot, so a write to the file while the copy goes on (a `subs
 * add` on the host) is wholly in the copy or wholly out of it, never a row without the
 * rows it belongs with.
 */
export async function copyToPostgres(
  source: Database.Database,
  pool: pg.Pool,
  where: string,
): Promise<CopyCounts> {
  if (source.inTransaction) return copySnapshot(source, pool, where);
  source.exec('BEGIN');
  try {
    return await copySnapshot(source, pool, where);
  } finally {
    if (source.inTransaction) source.exec('COMMIT');
  }
}

/** `copyToPostgres` within the read transaction it holds on `source`. */
async function copySnapshot(
  source: Database.Database,
  pool: pg.Pool,
  where: string,
): Promise<CopyCounts> {
  const version = source.pragma('user_version', { simple: true });
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  if (version !== latest)
    throw new DatabaseError(
      `the SQLite database has schema version ${String(version)}, this pipewatch uses ${latest}; run 'pipewatch run --once' on it to migrate it first`,
    );
  if (POSTGRES_MIGRATIONS.at(-1)?.sqlite !== latest)
    throw new DatabaseError(
      `the PostgreSQL schema of this pipewatch is level with SQLite's version ${String(POSTGRES_MIGRATIONS.at(-1)?.sqlite)}, not ${latest}`,
    );
  await refuseOtherTables(pool, where);
  await migratePostgres(pool, where);
  const tables = tablesInOrder(source).filter((t) => !POSTGRES_ONLY_TABLES.includes(t));
  const connection = await pool.connect();
  // Text with U+0000, which SQLite keeps, is stored as PostgreSQL can (`storableText`).
  const client = withoutNul(connection);
  let failed: unknown;
  try {
    await client.query('BEGIN');
    for (const table of tables) {
      if (SEEDED.has(table)) continue;
      const any = await client.query(`SELECT 1 FROM ${quoted(table)} LIMIT 1`);
      if (any.rowCount)
        throw new DatabaseError(
          `the PostgreSQL database ${where} is not empty (its ${table} table has rows): pipewatch copies into an empty database only; give it a new one`,
        );
    }
    const counts: CopyCounts = {};
    for (const table of tables) {
      await client.query(`ALTER TABLE ${quoted(table)} DISABLE TRIGGER USER`);
      if (SEEDED.has(table)) await client.query(`DELETE FROM ${quoted(table)}`);
      counts[table] = await copyTable(source, client, table);
      await client.query(`ALTER TABLE ${quoted(table)} ENABLE TRIGGER USER`);
      const sequence = await identityOf(client, table);
      const highest = sequence ? highestId(source, table) : 0;
      if (sequence && highest > 0)
        await client.query('SELECT setval($1::regclass, $2)', [sequence, highest]);
      const there = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${quoted(table)}`,
      );
      if (there.rows[0]?.n !== counts[table])
        throw new DatabaseError(
          `${table}: ${counts[table]} rows copied, but the PostgreSQL database holds ${String(there.rows[0]?.n)}; nothing was kept`,
        );
    }
    await client.query('COMMIT');
    return counts;
  } catch (error) {
    failed = error;
    await client.query('ROLLBACK').catch(() => {});
    throw error instanceof DatabaseError
      ? error
      : new DatabaseError(
          `the copy into ${where} failed, and left it empty: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
  } finally {
    connection.release(
      failed instanceof Error && !(failed instanceof DatabaseError) ? failed : undefined,
    );
  }
}
