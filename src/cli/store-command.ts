/**
 * What the commands that change subscriptions and silences share: the store the daemon
 * uses, SQLite or PostgreSQL, opened for the length of one command (SQLite's WAL lets the
 * daemon go on reading and writing meanwhile), and who is typing, recorded as the author
 * of what they make.
 */
import { userInfo } from 'node:os';
import type { AsyncStore } from '../store/async-store.js';
import type { CliContext } from './context.js';
import { openExistingStore } from './open-store.js';

/**
 * Runs `work` on the configured store and closes it; when there is none, says so and
 * sets exit status 1 (nothing is created: subscriptions and silences belong to a daemon's
 * store, and a mistyped `PIPEWATCH_DATA_DIR` would otherwise start an empty one).
 */
export async function withStore(
  ctx: CliContext,
  work: (store: AsyncStore) => Promise<void>,
): Promise<void> {
  const opened = await openExistingStore(ctx);
  if (!opened) return;
  try {
    await work(opened.store);
  } finally {
    await opened.close();
  }
}

/**
 * The operating-system user running the command, as the author of a silence or a
 * subscription made from the command line; `cli` when the system cannot say (a container
 * user without a passwd entry).
 */
export function cliUser(): string {
  try {
    const name = userInfo().username.trim();
    return name === '' ? 'cli' : name;
  } catch {
    return 'cli';
  }
}
