/**
 * The SQLite database: one file, one connection, WAL, foreign keys on, a busy timeout,
 * and the schema brought up to date by the migrations on open. A database written by a
 * newer pipewatch is refused rather than misread. Its directory is created owner-only and
 * its files are made owner-only (see `permissions.ts`).
 */
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { errorMessage } from '../lib/error-text.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import {
  type PermissionWarning,
  prepareDatabaseFile,
  prepareDataDirectory,
  restrictSideFiles,
} from './permissions.js';

export type Db = Database.Database;

/** WAL pages between automatic checkpoints (SQLite's default: 1,000). */
export const WAL_CHECKPOINT_PAGES = 10_000;

const statements = new WeakMap<Db, Map<string, Database.Statement>>();

/**
 * The statement for `sql` on `db`, prepared on its first use and kept for the connection's
 * life: what repositories use for the statements they run now and then, so that every
 * statement is prepared once without preparing them all when the store opens.
 */
export function statement<P extends unknown[] | object = unknown[], R = unknown>(
  db: Db,
  sql: string,
): Database.Statement<P, R> {
  let bySql = statements.get(db);
  if (!bySql) {
    bySql = new Map();
    statements.set(db, bySql);
  }
  let prepared = bySql.get(sql);
  if (!prepared) {
    prepared = db.prepare(sql);
    bySql.set(sql, prepared);
  }
  return prepared as Database.Statement<P, R>;
}

/** The file name inside `PIPEWATCH_DATA_DIR`. */
export const DATABASE_FILE = 'pipewatch.db';

/**
 * What a `DatabaseError` is: the database cannot be used as it is (`DATABASE`), or a
 * write only the leader of replicas sharing a PostgreSQL database may make was refused,
 * since this replica no longer leads (`not_leader`: another took the lease over).
 */
export type DatabaseErrorCode = 'DATABASE' | 'not_leader';

/** The database cannot be used as it is, or refused a write (see `DatabaseErrorCode`). */
export class DatabaseError extends Error {
  readonly code: DatabaseErrorCode;

  constructor(message: string, options?: ErrorOptions & { code?: DatabaseErrorCode }) {
    super(message, options);
    this.code = options?.code ?? 'DATABASE';
  }
}

/**
 * The row a query cannot fail to give (a counter the migrations made, a row just
 * written); a `DatabaseError` naming `what` when it gives none all the same.
 */
export function expectRow<T>(row: T | undefined, what: string): T {
  if (row === undefined) throw new DatabaseError(`the database has no ${what}`);
  return row;
}

/** What opening a database may report. */
export interface OpenOptions {
  /** Receives permission warnings (a data directory open to others); default: none. */
  warn?: PermissionWarning;
  /**
   * Hears of the one-time rewrite of a file made before incremental vacuum (which may
   * take a while on a large file); default: `warn`.
   */
  info?: (message: string) => void;
}

/**
 * Opens (creating if needed) the database at `path` and migrates it; the directory and
 * files it creates, and the database files it finds, are owner-only.
 */
export function openDatabase(
  path: string,
  migrations: readonly Migration[] = MIGRATIONS,
  options: OpenOptions = {},
): Db {
  const onDisk = path !== ':memory:';
  const warn = options.warn ?? (() => {});
  if (onDisk) {
    prepareDataDirectory(dirname(path), warn);
    prepareDatabaseFile(path, warn);
  }
  const db = new Database(path);
  try {
    // First: on a new file, turning WAL on writes the header that fixes auto_vacuum.
    const rewrite = useIncrementalVacuum(db);
    db.pragma('journal_mode = WAL');
    if (onDisk) restrictSideFiles(path, warn);
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    // A checkpoint copies each page changed since the last one back into the file, and
    // syncs both files. Every sync commits once a page, and the pages it changes are mostly
    // the same few (the indexes' newest leaves): checkpointing every 10,000 WAL pages
    // instead of SQLite's 1,000 copies each of them once where it copied it ten times
    // (`npm run bench ingest_with_rules`; its figures are in bench/results.json). The WAL
    // file may so reach ~40 MB; the daily prune (`retention.ts`) truncates it. A size
    // limit would cut it after every checkpoint, and growing it again costs the gain back.
    db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    const migrated = migrate(db, migrations, path);
    if (rewrite) vacuumOnce(db, path, options.info ?? warn, warn);
    // A migration that rewrote rows (8) leaves their old pages free: give them back.
    else if (migrated) db.pragma('incremental_vacuum');
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Opens an existing database read-only, for commands that must write nothing (`rules
 * test`). Its schema must be current: migrating would be a write.
 */
export function openDatabaseReadonly(path: string): Db {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current !== latest) {
    db.close();
    throw new DatabaseError(
      `${path} has schema version ${current}, this pipewatch uses ${latest}; run 'pipewatch run --once' to migrate it first`,
    );
  }
  return db;
}

/** The schema version of an open database. */
export function schemaVersion(db: Db): number {
  const version = db.pragma('user_version', { simple: true });
  if (typeof version !== 'number') throw new DatabaseError(`user_version reads ${String(version)}`);
  return version;
}

const INCREMENTAL = 2;

/**
 * Puts the database in `auto_vacuum = INCREMENTAL`, so that pruning can give space back
 * (`retention.ts`). A new file takes it at once, before any table exists; one with
 * tables takes it only through a VACUUM: true then.
 */
function useIncrementalVacuum(db: Db): boolean {
  if (db.pragma('auto_vacuum', { simple: true }) === INCREMENTAL) return false;
  db.pragma('auto_vacuum = INCREMENTAL');
  const tables = db
    .prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'")
    .get();
  return (tables?.n ?? 0) > 0;
}

/**
 * The one VACUUM that rewrites an existing file for incremental vacuum, outside any
 * transaction. A file busy in another process is left as it is, to try at the next open.
 */
function vacuumOnce(
  db: Db,
  path: string,
  info: (message: string) => void,
  warn: (message: string) => void,
): void {
  const started = performance.now();
  info(`rewriting ${path} once for incremental vacuum (VACUUM)`);
  try {
    db.exec('VACUUM');
    info(`rewrote ${path} in ${Math.round(performance.now() - started)} ms`);
  } catch (error) {
    warn(
      `could not rewrite ${path} for incremental vacuum, will try at the next start: ${errorMessage(error)}`,
    );
  }
}

/** Brings the schema up to date; whether any migration ran. */
function migrate(db: Db, migrations: readonly Migration[], path: string): boolean {
  const latest = migrations.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > latest) {
    throw new DatabaseError(
      `${path} has schema version ${current}, newer than this pipewatch understands (${latest}); upgrade pipewatch or use another PIPEWATCH_DATA_DIR`,
    );
  }
  let ran = false;
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    ran = true;
    db.transaction(() => {
      db.exec(migration.sql);
      migration.run?.(db);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
  return ran;
}
