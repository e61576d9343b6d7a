/**
 * One `pipewatch run` per SQLite database. Two daemons on one file would both poll,
 * decide and send, and every alert would go out twice; so the daemon (and `run --once`)
 * holds a lock beside the database for as long as it runs, and a second one is refused
 * at start, in one line naming the one that holds it. Commands that only read or change
 * what people set (`status`, `why`, `subs`, `silence`) take no lock: they work beside
 * the daemon.
 *
 * The lock is SQLite's own: a small file `pipewatch.lock` whose holder keeps a write
 * transaction open (a RESERVED lock) on a connection of its own. The operating system
 * releases it when the process ends, however it ends (SIGKILL, a crash, a container
 * stopped), so there is no stale lock to clean up and a restart takes it at once. Who
 * holds it is written in the file, committed before the lock is taken for good, so the
 * one refused can say who it is (a RESERVED lock still lets others read).
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { UtcIso } from '../lib/time.js';
import { DatabaseError } from './database.js';
import { RUN_LOCK_FILE } from './files.js';
import { prepareDatabaseFile } from './permissions.js';

export { RUN_LOCK_FILE };

/** Who holds the lock. */
export interface RunLockHolder {
  pid: number;
  host: string;
  since: UtcIso;
}

/** A held lock; `release` lets the next one take it. */
export interface RunLock {
  release(): void;
}

const isBusy = (error: unknown) =>
  error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_BUSY');

/** The holder written in the file, if it can be read. */
function holderOf(db: Database.Database): RunLockHolder | undefined {
  try {
    return db.prepare('SELECT pid, host, since FROM holder').get() as RunLockHolder | undefined;
  } catch {
    return undefined;
  }
}

function refusal(dataDir: string, holder: RunLockHolder | undefined): DatabaseError {
  const who = holder
    ? `another pipewatch run (pid ${holder.pid} on ${holder.host}, since ${holder.since})`
    : 'another pipewatch run';
  return new DatabaseError(
    `${who} is using the database in ${dataDir}: one runs per database, or every alert would go out twice; stop it first, or give this one a PIPEWATCH_DATA_DIR of its own`,
  );
}

/**
 * Takes the lock of the database in `dataDir` for this process, or throws a
 * `DatabaseError` naming the process that holds it.
 */
export function holdRunLock(
  dataDir: string,
  now: UtcIso,
  warn: (m: string) => void = () => {},
): RunLock {
  const path = join(dataDir, RUN_LOCK_FILE);
  prepareDatabaseFile(path, warn);
  const db = new Database(path);
  try {
    db.pragma('busy_timeout = 0');
    db.exec(
      'CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL)',
    );
    const me: RunLockHolder = { pid: process.pid, host: hostname(), since: now };
    // Taken, said who holds it, then taken for good: between the two a starting run may
    // take it instead, and then this one is refused as any later one would be.
    for (const step of ['write', 'hold'] as const) {
      try {
        db.exec('BEGIN IMMEDIATE');
      } catch (error) {
        if (isBusy(error)) throw refusal(dataDir, holderOf(db));
        throw error;
      }
      if (step === 'hold') break;
      db.exec('DELETE FROM holder');
      db.prepare('INSERT INTO holder (pid, host, since) VALUES (@pid, @host, @since)').run(me);
      db.exec('COMMIT');
    }
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    release() {
      if (!db.open) return;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
