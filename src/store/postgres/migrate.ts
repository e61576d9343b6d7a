/**
 * Brings a PostgreSQL database's schema up to date, safely when several replicas start at
 * once: the pending migrations run in one transaction that first takes a transaction-level
 * advisory lock, so one replica migrates and the others, waiting on the lock, find the
 * work done. `schema_migrations` records each version applied. A database whose schema is
 * newer than this pipewatch knows is refused rather than misread, as SQLite's is.
 */
import type pg from 'pg';
import { errorMessage } from '../../lib/error-text.js';
import { DatabaseError } from '../database.js';
import { POSTGRES_MIGRATIONS, type PostgresMigration } from './migrations.js';

/**
 * The advisory lock the migrations run under: "pipewatc" in ASCII, as a 64-bit key. It is
 * held by the transaction, so it goes with it, commit, rollback or a dropped connection.
 * Advisory locks are per database: two databases on one server do not wait for each other.
 */
export const MIGRATION_LOCK = '8100128985899431011';

/** What a migration run did. */
export interface MigrateOutcome {
  /** The schema version found. */
  from: number;
  /** The schema version now. */
  to: number;
  /** The versions this run applied (none when another replica had). */
  applied: number[];
}

/** The schema version this release's migrations bring a database to. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.at(-1)?.version ?? 0;

/**
 * The schema version of a database: its last migration applied, 0 for none (a database
 * never migrated has no `schema_migrations`). Two statements, since PostgreSQL resolves
 * every table a statement names before running it, even in a branch it does not take.
 */
export async function postgresSchemaVersion(client: pg.ClientBase | pg.Pool): Promise<number> {
  const { rows: found } = await client.query<{ present: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
  );
  if (!found[0]?.present) return 0;
  const { rows } = await client.query<{ version: number | null }>(
    'SELECT coalesce(max(version), 0) AS version FROM schema_migrations',
  );
  return rows[0]?.version ?? 0;
}

/**
 * Applies the pending `migrations` to the database of `pool`, all in one transaction;
 * `where` names the database in errors (a URL shown without its password).
 */
export async function migratePostgres(
  pool: pg.Pool,
  where: string,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<MigrateOutcome> {
  const latest = migrations.at(-1)?.version ?? 0;
  const client = await pool.connect().catch((error: unknown) => {
    throw new DatabaseError(
      `the PostgreSQL database ${where} could not be migrated: ${errorMessage(error)}`,
      { cause: error },
    );
  });
  let failed: unknown;
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version    INTEGER PRIMARY KEY,
         name       TEXT NOT NULL,
         applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
       )`,
    );
    const from = await postgresSchemaVersion(client);
    if (from > latest) {
      throw new DatabaseError(
        `the PostgreSQL database ${where} has schema version ${from}, newer than this pipewatch understands (${latest}); upgrade pipewatch (every replica that uses it) or use another database`,
      );
    }
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      try {
        await client.query(migration.sql);
        await migration.run?.(client);
      } catch (error) {
        throw new DatabaseError(
          `the PostgreSQL database ${where} could not be migrated to version ${migration.version} (${migration.name}), and is left as it was: ${errorMessage(error)}`,
          { cause: error },
        );
      }
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, latest), applied };
  } catch (error) {
    failed = error;
    await client.query('ROLLBACK').catch(() => {});
    if (error instanceof DatabaseError) throw error;
    throw new DatabaseError(
      `the PostgreSQL database ${where} could not be migrated: ${errorMessage(error)}`,
      { cause: error },
    );
  } finally {
    // A connection whose transaction failed midway is not given back for reuse.
    client.release(
      failed instanceof Error && !(failed instanceof DatabaseError) ? failed : undefined,
    );
  }
}
