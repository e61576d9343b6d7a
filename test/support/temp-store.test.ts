/**
 * The temporary stores the other tests stand on: each test's own, made when it first reads
 * it and removed after it; one shared by a describe, kept between its tests; reopened on
 * the same file; several in one test. The tests of a describe run in order, so a test looks
 * at what the one before it left.
 */
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { useTempDir, useTempStore, useTempStores } from './temp-store.js';

const wrote = (store: Store) => store.syncState.attempted('notices', '2026-11-20T12:00:00Z');
const written = (store: Store) => store.syncState.all().length;

describe('a store per test', () => {
  const temp = useTempStore('pipewatch-temp-each-');
  let before: { store: Store; dir: string } | undefined;

  it('is open in a directory of its own', () => {
    wrote(temp.store);
    expect(written(temp.store)).toBe(1);
    before = { store: temp.store, dir: temp.dir };
  });

  it('is another one in the next test, the last closed and its directory gone', () => {
    expect(temp.dir).not.toBe(before!.dir);
    expect(existsSync(before!.dir)).toBe(false);
    expect(before!.store.db.open).toBe(false);
    expect(written(temp.store)).toBe(0);
  });

  it('reopens on the same file, the old connection closed', () => {
    const first = temp.store;
    wrote(first);
    const again = temp.reopen();
    expect(first.db.open).toBe(false);
    expect(temp.store).toBe(again);
    expect(written(again)).toBe(1);
  });
});

describe('a store not read', () => {
  const prefix = 'pipewatch-temp-unread-';
  const temp = useTempStore(prefix);
  const made = () => readdirSync(tmpdir()).filter((name) => name.startsWith(prefix));

  it('is not made until a test reads it', () => {
    expect(made()).toEqual([]);
    expect(temp.store.db.open).toBe(true);
    expect(made()).toHaveLength(1);
  });
});

describe('a store shared by a describe', () => {
  const temp = useTempStore('pipewatch-temp-shared-', { shared: true });
  let dir: string | undefined;

  it('keeps what one test wrote for the next', () => {
    wrote(temp.store);
    dir = temp.dir;
  });

  it('is the same store in the next test', () => {
    expect(temp.dir).toBe(dir);
    expect(written(temp.store)).toBe(1);
  });
});

describe('a data directory without a store', () => {
  const temp = useTempDir('pipewatch-temp-dir-');
  let before: string | undefined;

  it('exists and holds nothing', () => {
    expect(existsSync(temp.dir)).toBe(true);
    before = temp.dir;
  });

  it('is removed after its test', () => {
    expect(existsSync(before!)).toBe(false);
  });
});

describe('stores opened as a test goes', () => {
  const { open } = useTempStores('pipewatch-temp-many-');
  let opened: Array<{ store: Store; dir: string }> = [];

  it('each in a directory of its own, or again in one already made', () => {
    const a = open();
    const b = open();
    expect(a.dir).not.toBe(b.dir);
    wrote(a.store);
    a.store.close();
    const again = open(a.dir);
    expect(written(again.store)).toBe(1);
    opened = [a, b, again];
  });

  it('are all closed after their test, and their directories removed', () => {
    for (const { store, dir } of opened) {
      expect(store.db.open).toBe(false);
      expect(existsSync(dir)).toBe(false);
    }
  });
});

describe('outside a test', () => {
  const temp = useTempStore('pipewatch-temp-outside-');
  let read: unknown;
  try {
    read = temp.store;
  } catch (error) {
    read = error;
  }

  it('there is no store to read', () => {
    expect(read).toBeInstanceOf(Error);
    expect(String(read)).toMatch(/exists only while a test runs/);
  });
});
