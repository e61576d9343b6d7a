/**
 * The names of the files pipewatch keeps in `PIPEWATCH_DATA_DIR` besides its database,
 * importable without opening anything (the demo lists what it may delete before it
 * loads the database driver).
 */

/** The run lock (`run-lock.ts`); its journal is `pipewatch.lock-journal`. */
export const RUN_LOCK_FILE = 'pipewatch.lock';
