/**
 * A store of its own for each test of a file: opened in a fresh data directory before
 * each test, closed and its directory removed after it. In place of the same
 * `beforeEach`/`afterEach` pair in every file that needs a store:
 *
 *     const temp = useTempStore('pipewatch-page-');
 *     it('…', () => { temp.store.notices.count(); });
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { Store } from '../../src/store/index.js';

export interface TempStore {
  /** The store of the test running now; read outside a test, it throws. */
  readonly store: Store;
  /** Its data directory. */
  readonly dir: string;
}

export function useTempStore(prefix: string): TempStore {
  let current: { store: Store; dir: string } | undefined;
  beforeEach(() => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    current = { store: Store.open(dir), dir };
  });
  afterEach(() => {
    current?.store.close();
    if (current) rmSync(current.dir, { recursive: true, force: true });
    current = undefined;
  });
  const now = () => {
    if (!current) throw new Error('a temporary store exists only while a test runs');
    return current;
  };
  return {
    get store() {
      return now().store;
    },
    get dir() {
      return now().dir;
    },
  };
}
