/**
 * `pipewatch store copy --to postgres://…`: the way from one SQLite store to replicas on
 * PostgreSQL. The action, and with it the PostgreSQL driver, loads with the command.
 */
import { Command } from 'commander';
import type { CliContext } from './context.js';

/** Registers `store` and its subcommands. */
export function storeCommand(ctx: CliContext): Command {
  const store = new Command('store').description(
    'move the database: copy the SQLite store into PostgreSQL for replicas',
  );
  store
    .command('copy')
    .description(
      'copy the SQLite store in PIPEWATCH_DATA_DIR into an empty PostgreSQL database (stop pipewatch run first)',
    )
    .requiredOption(
      '--to <url>',
      'the PostgreSQL database: postgres://user:password@host:5432/db (or postgresql://)',
    )
    .action(async (opts: { to: string }) =>
      (await import('./store-copy.js')).copyStore(ctx, opts.to),
    );
  return store;
}
