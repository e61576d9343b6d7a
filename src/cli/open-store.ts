/**
 * The store as the commands that read or change what `run` stored open it, SQLite or
 * PostgreSQL as configured, apart from the context every command gets: SQLite's native
 * binding, or PostgreSQL's driver, loads only for a command that reads the store.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { asyncStoreOf } from '../store/async-sqlite.js';
import { DATABASE_FILE, Store } from '../store/index.js';
import {
  type OpenedStore,
  openExistingStore as openConfigured,
  type StoreLocation,
} from '../store/open.js';
import type { CliContext } from './context.js';

/** Where the configuration puts the store. */
function locationOf(ctx: CliContext): StoreLocation {
  return { dataDir: ctx.config.dataDir, databaseUrl: ctx.config.databaseUrl };
}

/**
 * Opens the configured store for a command that reads or changes what `run` stored; when
 * there is none (no SQLite file, a PostgreSQL database no pipewatch has migrated), says
 * so, sets exit status 1 and returns undefined, rather than creating one empty.
 */
export async function openExistingStore(ctx: CliContext): Promise<OpenedStore | undefined> {
  return openConfigured(
    locationOf(ctx),
    (message) => {
      ctx.err(`pipewatch: ${message}`);
      ctx.exitCode = 1;
    },
    { info: (message) => ctx.err(`pipewatch: ${message}`) },
  );
}

/**
 * The configured store for a dry run, which changes nothing: SQLite's file opened
 * read-only, a PostgreSQL database only at this release's schema version (neither is
 * migrated: a `DatabaseError` says so); undefined, with `missing` told why, when there is none yet (no file, a
 * PostgreSQL database no pipewatch has migrated).
 */
export async function openStoreToRead(
  at: StoreLocation,
  missing: (message: string) => void = () => {},
): Promise<OpenedStore | undefined> {
  if (at.databaseUrl !== undefined) return openConfigured(at, missing, { migrate: false });
  const file = join(at.dataDir, DATABASE_FILE);
  if (!existsSync(file)) {
    missing(`no database at ${file}; run 'pipewatch run' first (or set PIPEWATCH_DATA_DIR)`);
    return undefined;
  }
  const sqlite = Store.openReadonly(at.dataDir);
  return {
    kind: 'sqlite',
    store: asyncStoreOf(sqlite),
    where: file,
    close: async () => sqlite.close(),
  };
}
