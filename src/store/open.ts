/**
 * The store as the configuration names it: SQLite (`pipewatch.db` in the data directory)
 * unless `PIPEWATCH_DATABASE_URL` names a PostgreSQL database, opened behind the one
 * asynchronous interface (`AsyncStore`) every part of pipewatch uses. PostgreSQL's
 * driver is loaded only when a URL is set, so SQLite installations never load it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { asyncStoreOf } from './async-sqlite.js';
import type { AsyncStore } from './async-store.js';
import { DATABASE_FILE, DatabaseError } from './database.js';
import { Store } from './index.js';
import type { Fence } from './postgres/fence.js';

/** Which database a store is. */
export type StoreKind = 'sqlite' | 'postgres';

/** Where the store is, as the configuration says. */
export interface StoreLocation {
  dataDir: string;
  /** Set: PostgreSQL, and `dataDir` holds nothing of the store. */
  databaseUrl?: string | undefined;
}

/** An open store, of either kind. */
export interface OpenedStore {
  readonly kind: StoreKind;
  readonly store: AsyncStore;
  /** Where it is, as it may be shown: the file, or the URL without its password. */
  readonly where: string;
  /** The PostgreSQL pool (replicas, the lease's database); undefined on SQLite. */
  readonly pool?: pg.Pool;
  close(): Promise<void>;
}

/** What opening a store may be told. */
export interface OpenStoreOptions {
  /** Hears of what opening found wrong but went on with (SQLite: a stale run lock). */
  warn?: (message: string) => void;
  /** Hears of what opening did (PostgreSQL: the migrations it applied). */
  info?: (message: string) => void;
  /**
   * PostgreSQL: the leader's term, under which the outbox is claimed and marked
   * (`lease.ts`); none: every such write is refused (`not_leader`), as a standby's are.
   * SQLite has one process and needs none.
   */
  fence?: () => Fence | undefined;
  /**
   * SQLite: hold the data directory's run lock (`run-lock.ts`), as a daemon does, so a
   * second daemon on the same file is refused; `now` is when, for its message.
   */
  runLock?: { now: string };
  /** PostgreSQL: connections at most (`connect.ts`'s default otherwise). */
  poolSize?: number;
  /** PostgreSQL: hears of a connection that failed while idle (a server restart). */
  onPoolError?: (error: DatabaseError) => void;
  /**
   * PostgreSQL: how long each statement of the store waits for its answer at most
   * (`PgStoreOptions`); none: as long as it takes. The daemon gives the lease's length.
   */
  queryTimeoutMs?: number;
}

/** The configured store, created (and its schema brought up to date) when new. */
export async function openStore(
  at: StoreLocation,
  options: OpenStoreOptions = {},
): Promise<OpenedStore> {
  if (at.databaseUrl !== undefined) return openPostgres(at.databaseUrl, options, 'create');
  const sqlite = Store.open(at.dataDir, options.warn ? { warn: options.warn } : {});
  try {
    if (options.runLock) sqlite.holdRunLock(at.dataDir, options.runLock.now, options.warn);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return sqliteOpened(sqlite, join(at.dataDir, DATABASE_FILE));
}

/**
 * The configured store for a command that reads or changes what `run` stored; undefined,
 * with `missing` saying why, when there is none yet (no file; a PostgreSQL database no
 * pipewatch has migrated), rather than one created empty.
 */
export async function openExistingStore(
  at: StoreLocation,
  missing: (message: string) => void,
  options: Pick<OpenStoreOptions, 'warn' | 'info'> & {
    /**
     * For a dry run on PostgreSQL: a database of another schema version is refused (a
     * `DatabaseError`), not migrated, as SQLite's file opened read-only is. Migrating is
     * for a replica's start: a newer schema under replicas of the release before could stop them.
     */
    migrate?: false;
  } = {},
): Promise<OpenedStore | undefined> {
  if (at.databaseUrl !== undefined) {
    const opened = await openPostgres(
      at.databaseUrl,
      options,
      options.migrate === false ? 'read' : 'existing',
    );
    if (opened) return opened;
    missing(
      `no pipewatch database at ${await shownUrl(at.databaseUrl)}; start 'pipewatch run' on it first (or check PIPEWATCH_DATABASE_URL)`,
    );
    return undefined;
  }
  const file = join(at.dataDir, DATABASE_FILE);
  if (!existsSync(file)) {
    missing(`no database at ${file}; run 'pipewatch run' first (or set PIPEWATCH_DATA_DIR)`);
    return undefined;
  }
  return sqliteOpened(Store.open(at.dataDir, options.warn ? { warn: options.warn } : {}), file);
}

function sqliteOpened(sqlite: Store, where: string): OpenedStore {
  return {
    kind: 'sqlite',
    store: asyncStoreOf(sqlite),
    where,
    close: async () => sqlite.close(),
  };
}

async function shownUrl(url: string): Promise<string> {
  return (await import('./postgres/connect.js')).shownPostgresUrl(url);
}

async function openPostgres(
  url: string,
  options: OpenStoreOptions,
  mode: 'create',
): Promise<OpenedStore>;
async function openPostgres(
  url: string,
  options: OpenStoreOptions,
  mode: 'existing' | 'read',
): Promise<OpenedStore | undefined>;
async function openPostgres(
  url: string,
  options: OpenStoreOptions,
  mode: 'create' | 'existing' | 'read',
): Promise<OpenedStore | undefined> {
  const { connectPostgres, shownPostgresUrl } = await import('./postgres/connect.js');
  const { migratePostgres, postgresSchemaVersion, POSTGRES_SCHEMA_VERSION } = await import(
    './postgres/migrate.js'
  );
  const { pgAsyncStore } = await import('./postgres/async-store.js');
  const where = shownPostgresUrl(url);
  const pool = await connectPostgres(url, {
    ...(options.poolSize !== undefined ? { max: options.poolSize } : {}),
    ...(options.onPoolError ? { onError: options.onPoolError } : {}),
  });
  try {
    const current = mode === 'create' ? undefined : await postgresSchemaVersion(pool);
    if (current === 0) {
      await pool.end();
      return undefined;
    }
    if (mode === 'read' && current !== POSTGRES_SCHEMA_VERSION)
      throw new DatabaseError(
        `the PostgreSQL database ${where} has schema version ${current}, this pipewatch uses ${POSTGRES_SCHEMA_VERSION}; start 'pipewatch run' of this release on it to migrate it first`,
      );
    const migrated = await migratePostgres(pool, where);
    if (migrated.applied.length > 0)
      options.info?.(
        `the PostgreSQL database ${where} was migrated from schema version ${migrated.from} to ${migrated.to}`,
      );
  } catch (error) {
    await pool.end().catch(() => {});
    throw error instanceof DatabaseError ? error : new DatabaseError(String(error));
  }
  return {
    kind: 'postgres',
    store: pgAsyncStore(
      pool,
      options.fence ?? (() => undefined),
      options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs },
    ),
    where,
    pool,
    close: () => pool.end(),
  };
}
