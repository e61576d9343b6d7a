/**
 * The database is owner-only whatever the umask: a data directory pipewatch creates is
 * 0700, `pipewatch.db` and its `-wal` and `-shm` files are 0600, files left looser by an
 * earlier version are tightened, and an existing directory open to others is reported,
 * not changed.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE, Store } from '../../src/store/index.js';

const mode = (path: string) => statSync(path).mode & 0o777;
let umask: number;
let store: Store | undefined;

beforeAll(() => {
  // The usual umask, under which files are created 0644 and directories 0755.
  umask = process.umask(0o022);
});
afterAll(() => {
  process.umask(umask);
});
afterEach(() => {
  store?.close();
  store = undefined;
});

/** Writes something, so that SQLite has a WAL and shared-memory file to keep. */
function write(s: Store): void {
  s.syncState.attempted('notices', '2026-11-20T12:00:00Z');
}

describe('database permissions', () => {
  it('creates the data directory 0700 and the database, WAL and shm files 0600', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'pipewatch-perm-')), 'nested', 'data');
    const warnings: string[] = [];
    store = Store.open(dataDir, { warn: (m) => warnings.push(m) });
    write(store);
    expect(readdirSync(dataDir).sort()).toEqual([
      DATABASE_FILE,
      `${DATABASE_FILE}-shm`,
      `${DATABASE_FILE}-wal`,
    ]);
    expect(mode(dataDir)).toBe(0o700);
    for (const file of readdirSync(dataDir))
      expect([file, mode(join(dataDir, file))]).toEqual([file, 0o600]);
    expect(warnings).toEqual([]);
  });

  it('tightens database files an earlier version left readable by others', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-perm-'));
    // Another connection keeps a WAL with content, as after a crash; SQLite itself sets
    // the mode only of side files it creates.
    const earlier = Store.open(dataDir);
    write(earlier);
    for (const file of readdirSync(dataDir)) chmodSync(join(dataDir, file), 0o644);
    expect(statSync(join(dataDir, `${DATABASE_FILE}-wal`)).size).toBeGreaterThan(0);
    try {
      store = Store.open(dataDir);
      write(store);
      for (const file of readdirSync(dataDir))
        expect([file, mode(join(dataDir, file))]).toEqual([file, 0o600]);
    } finally {
      earlier.close();
    }
  });

  it('leaves an existing directory open to others as it is, and says so', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'pipewatch-perm-')), 'shared');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const warnings: string[] = [];
    store = Store.open(dataDir, { warn: (m) => warnings.push(m) });
    write(store);
    expect(mode(dataDir)).toBe(0o755);
    expect(warnings).toEqual([
      `data directory ${dataDir} is open to other users (mode 0755); the database files in it are owner-only (0600), and \`chmod 700 ${dataDir}\` hides their names and sizes too`,
    ]);
    expect(mode(join(dataDir, DATABASE_FILE))).toBe(0o600);
  });
});
