/**
 * `pipewatch store copy --to postgres://…`: the SQLite store of PIPEWATCH_DATA_DIR copied
 * into an empty PostgreSQL database (`store/postgres/copy.ts`), the step between one
 * pipewatch on a file and replicas sharing a database.
 *
 * The copy must be the last state the SQLite store will ever have: whatever a daemon
 * decided or sent after it would be missing from PostgreSQL, to be decided and sent again
 * by the replicas. So the command takes the run lock of the data directory
 * (`store/run-lock.ts`) for as long as it copies: while a `pipewatch run` (or `run
 * --once`) is on the database the copy is refused, naming it, and none can start
 * meanwhile. The file itself is opened read-only, and `copyToPostgres` reads every table
 * within one read transaction, one snapshot, so a `subs` or `silence` command typed on the
 * host meanwhile (they take no lock) lands wholly before the copy or wholly after it,
 * never half in.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { inlineText } from '../lib/terminal.js';
import { toUtcIso } from '../lib/time.js';
import { counted } from '../lib/words.js';
import { DATABASE_FILE, openDatabaseReadonly } from '../store/database.js';
import {
  connectPostgres,
  postgresUrlProblem,
  shownPostgresUrl,
} from '../store/postgres/connect.js';
import { type CopyCounts, copyToPostgres } from '../store/postgres/copy.js';
import { holdRunLock } from '../store/run-lock.js';
import type { CliContext } from './context.js';
import { BadInputError } from './errors.js';
import { table } from './format.js';

/** Copies the SQLite store into the PostgreSQL database at `url`; see the file's comment. */
export async function copyStore(ctx: CliContext, url: string): Promise<void> {
  const problem = postgresUrlProblem(url);
  if (problem !== undefined)
    throw new BadInputError([`--to ${inlineText(shownPostgresUrl(url))} ${problem}`]);
  const shown = inlineText(shownPostgresUrl(url));
  const { dataDir } = ctx.config;
  const file = join(dataDir, DATABASE_FILE);
  if (!existsSync(file)) {
    ctx.err(
      `pipewatch: no SQLite database at ${file} to copy; set PIPEWATCH_DATA_DIR to the directory that holds ${DATABASE_FILE}`,
    );
    ctx.exitCode = 1;
    return;
  }
  const lock = holdRunLock(dataDir, toUtcIso(ctx.clock.now()), (m) => ctx.logger.warn(m));
  let counts: CopyCounts;
  try {
    const source = openDatabaseReadonly(file);
    try {
      const pool = await connectPostgres(url);
      try {
        counts = await copyToPostgres(source, pool, shown);
      } finally {
        await pool.end();
      }
    } finally {
      source.close();
    }
  } finally {
    lock.release();
  }
  printSummary(ctx, file, shown, counts);
}

function printSummary(ctx: CliContext, file: string, shown: string, counts: CopyCounts): void {
  const tables = Object.entries(counts);
  const rows = tables.reduce((sum, [, n]) => sum + n, 0);
  const filled = tables.filter(([, n]) => n > 0);
  ctx.out(
    `copied ${counted(rows, 'row')} in ${counted(tables.length, 'table')} from ${file} into ${shown}`,
  );
  if (filled.length > 0) {
    ctx.out();
    ctx.out(
      table(
        ['table', 'rows'],
        filled.map(([name, n]) => [name, String(n)]),
        ['left', 'right'],
      ),
    );
  }
  const empty = tables.length - filled.length;
  if (empty > 0) ctx.out(`(${counted(empty, 'other table')} had no rows)`);
  ctx.out();
  ctx.out(
    'next: set PIPEWATCH_DATABASE_URL to this URL, with its password, on every replica and start them (pipewatch run); start no pipewatch on the SQLite store again, or it would alert beside them',
  );
}
