/**
 * The database as the reading commands open it, apart from the context every command
 * gets: SQLite's native binding loads only for a command that reads what `run` stored.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE, Store } from '../store/index.js';
import type { CliContext } from './context.js';

/**
 * Opens the configured database for a command that reads what `run` stored; when there
 * is none, says so, sets exit status 1 and returns undefined (rather than creating one).
 */
export function openExistingStore(ctx: CliContext): Store | undefined {
  const file = join(ctx.config.dataDir, DATABASE_FILE);
  if (!existsSync(file)) {
    ctx.err(
      `pipewatch: no database at ${file}; run 'pipewatch run' first (or set PIPEWATCH_DATA_DIR)`,
    );
    ctx.exitCode = 1;
    return undefined;
  }
  return Store.open(ctx.config.dataDir);
}
