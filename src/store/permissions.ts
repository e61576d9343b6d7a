/**
 * Owner-only permissions for the database: the data directory pipewatch creates is 0700
 * and the database files (`pipewatch.db`, `-wal`, `-shm`) are 0600, whatever the process
 * umask. They hold who is alerted where (email addresses, channel and user ids) and what
 * the platforms answered, which is nobody else's business on a shared host.
 *
 * SQLite creates the `-wal` and `-shm` files with the mode of the database file, so the
 * database file is made 0600 before SQLite opens it, and the other two are set again
 * after the open in case an earlier run left them looser. A directory that already
 * exists is not changed (it may be shared on purpose, or be a mount point): a looser one
 * is reported, and the files inside stay owner-only anyway.
 */

import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  mkdirSync,
  openSync,
  statSync,
} from 'node:fs';
import { errorCode } from '../lib/error-text.js';

/** Mode of a data directory pipewatch creates. */
export const DIRECTORY_MODE = 0o700;
/** Mode of each database file. */
export const FILE_MODE = 0o600;
/** Files SQLite keeps beside the database in WAL mode. */
export const SIDE_FILES = ['-wal', '-shm'] as const;

/** Receives a one-line warning about permissions. */
export type PermissionWarning = (message: string) => void;

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

function codeOf(error: unknown): string {
  return errorCode(error) ?? String(error);
}

/** Creates `dir` as 0700 when missing; warns when an existing one is open to others. */
export function prepareDataDirectory(dir: string, warn: PermissionWarning): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: DIRECTORY_MODE });
    // mkdir's mode passes through the umask; chmod sets it exactly.
    chmodSync(dir, DIRECTORY_MODE);
    return;
  }
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    warn(
      `data directory ${dir} is open to other users (mode ${octal(mode)}); the database files in it are owner-only (${octal(FILE_MODE)}), and \`chmod 700 ${dir}\` hides their names and sizes too`,
    );
  }
}

/**
 * Makes the database file exist with mode 0600 before SQLite opens it (an empty file is
 * a valid new database), and makes an existing one 0600.
 */
export function prepareDatabaseFile(path: string, warn: PermissionWarning): void {
  const fd = openSync(path, 'a', FILE_MODE);
  try {
    fchmodSync(fd, FILE_MODE);
  } catch (error) {
    warn(`could not make ${path} owner-only (${codeOf(error)})`);
  } finally {
    closeSync(fd);
  }
}

/** Sets the WAL and shared-memory files, when present, to 0600. */
export function restrictSideFiles(path: string, warn: PermissionWarning): void {
  for (const suffix of SIDE_FILES) {
    const file = `${path}${suffix}`;
    try {
      if ((statSync(file).mode & 0o777) !== FILE_MODE) chmodSync(file, FILE_MODE);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT')
        warn(`could not make ${file} owner-only (${codeOf(error)})`);
    }
  }
}
