/**
 * The run lock of a SQLite database: one holder at a time, the next refused naming it,
 * and free again once the holder lets go or closes its store.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';
import { holdRunLock } from '../../src/store/run-lock.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-run-lock-');
const NOW = '2026-11-20T15:00:00Z';

describe('the run lock', () => {
  it('refuses a second holder, naming the first; free again once released', () => {
    const first = holdRunLock(temp.dir, NOW);
    expect(() => holdRunLock(temp.dir, NOW)).toThrow(
      `another pipewatch run (pid ${process.pid} on ${hostname()}, since ${NOW}) is using the database in ${temp.dir}: one runs per database, or every alert would go out twice; stop it first, or give this one a PIPEWATCH_DATA_DIR of its own`,
    );
    first.release();
    holdRunLock(temp.dir, '2026-11-20T16:00:00Z').release();
  });

  it('is held by a store until it closes, and people’s commands need none', () => {
    const { store } = temp;
    store.holdRunLock(temp.dir, NOW);
    expect(() => holdRunLock(temp.dir, NOW)).toThrow(/another pipewatch run/);
    // A command beside the run reads and writes the database as before.
    const beside = Store.open(temp.dir);
    expect(beside.acks.acknowledge('slack', 'C0GAS', '1.1', 'U0ALICE', NOW).already).toBe(false);
    beside.close();
    expect(() => holdRunLock(temp.dir, NOW)).toThrow(/another pipewatch run/);
    store.close();
    holdRunLock(temp.dir, NOW).release();
  });
});
