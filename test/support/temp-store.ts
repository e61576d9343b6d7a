/**
 * Data directories for tests, with a store in them or not yet, made for each test when it
 * first reads them and removed after it (their stores closed first). In place of the same
 * `beforeEach`/`afterEach` pair in every file that needs a store:
 *
 *     const temp = useTempStore('pipewatch-page-');
 *     it('…', () => { temp.store.notices.count(); });
 *
 * and, for what is close to that but not the same:
 *
 *     useTempStore(prefix, { shared: true })       // one for all tests of the describe
 *     temp.reopen()                                // closed and opened again, as a restart
 *     useTempDir(prefix)                           // a data directory, no store in it yet
 *     const { open } = useTempStores(prefix)       // as many stores as a test opens
 *
 * A test that hands the directory to a command closes the store first
 * (`temp.store.close()`), as pipewatch would have it to itself; closing again is harmless.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { Store } from '../../src/store/index.js';

export interface TempOptions {
  /**
   * One directory (and store) for all the tests of the `describe` it is called in, or of
   * the file at its top, removed after the last of them: for tests that only read what a
   * `beforeAll` stored, at a cost too high to pay for each.
   */
  shared?: boolean;
}

export interface TempDir {
  /** The data directory of the test running now; read outside a test, it throws. */
  readonly dir: string;
}

export interface TempStore extends TempDir {
  /** The store of the test running now; read outside a test, it throws. */
  readonly store: Store;
  /**
   * Closes the store and opens its directory again, as pipewatch does when it restarts;
   * `store` is the new one from then on.
   */
  reopen(): Store;
}

export interface TempStores {
  /**
   * Opens a store in a fresh directory, or in `dir` (one `open` made, to open it again
   * after closing it); every store the test opened is closed after it, and each fresh
   * directory removed.
   */
  open(dir?: string): { store: Store; dir: string };
}

/** A data directory with no store in it yet: for a test that writes the file itself. */
export function useTempDir(prefix: string, options: TempOptions = {}): TempDir {
  const now = scoped(prefix, options.shared);
  return {
    get dir() {
      return now().dir();
    },
  };
}

/** A store of its own for each test of a file (or one for a `describe`, when shared). */
export function useTempStore(prefix: string, options: TempOptions = {}): TempStore {
  const now = scoped(prefix, options.shared);
  return {
    get store() {
      return now().store();
    },
    get dir() {
      return now().dir();
    },
    reopen() {
      return now().reopen();
    },
  };
}

/** Stores opened as a test goes, each in a directory of its own unless it names one. */
export function useTempStores(prefix: string): TempStores {
  const stores: Store[] = [];
  const dirs: string[] = [];
  let running = false;
  beforeEach(() => {
    running = true;
  });
  afterEach(() => {
    running = false;
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    open(dir?: string) {
      if (!running) throw new Error(NOT_RUNNING);
      let where = dir;
      if (where === undefined) {
        where = mkdtempSync(join(tmpdir(), prefix));
        dirs.push(where);
      }
      const store = Store.open(where);
      stores.push(store);
      return { store, dir: where };
    },
  };
}

const NOT_RUNNING = 'a temporary store exists only while a test runs';

/**
 * The directory and store of one test (or describe), each made when first asked for: a
 * test that never reads `store` pays nothing for it (opening one runs every migration,
 * tens of milliseconds).
 */
class Made {
  #dir: string | undefined;
  #store: Store | undefined;

  constructor(private readonly prefix: string) {}

  dir(): string {
    this.#dir ??= mkdtempSync(join(tmpdir(), this.prefix));
    return this.#dir;
  }

  store(): Store {
    this.#store ??= Store.open(this.dir());
    return this.#store;
  }

  reopen(): Store {
    this.#store?.close();
    this.#store = Store.open(this.dir());
    return this.#store;
  }

  remove(): void {
    this.#store?.close();
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** What the test (or describe) running now has made; outside one, it throws. */
function scoped(prefix: string, shared: boolean | undefined): () => Made {
  let made: Made | undefined;
  hooks(
    shared,
    () => {
      made = new Made(prefix);
    },
    () => {
      made?.remove();
      made = undefined;
    },
  );
  return () => {
    if (!made) throw new Error(NOT_RUNNING);
    return made;
  };
}

/** `make` before each test and `remove` after it, or once around the describe when shared. */
function hooks(shared: boolean | undefined, make: () => void, remove: () => void): void {
  if (shared) {
    beforeAll(make);
    afterAll(remove);
  } else {
    beforeEach(make);
    afterEach(remove);
  }
}
