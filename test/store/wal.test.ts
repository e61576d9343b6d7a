import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, WAL_CHECKPOINT_PAGES } from '../../src/store/database.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the write-ahead log', () => {
  it('checkpoints every 10,000 pages, not every 1,000', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-wal-'));
    dirs.push(dir);
    const db = openDatabase(join(dir, 'pipewatch.db'));
    try {
      db.exec('CREATE TABLE scratch (x BLOB NOT NULL)');
      const insert = db.prepare('INSERT INTO scratch (x) VALUES (?)');
      // 1,500 commits of a page-sized row each: past SQLite's 1,000-page checkpoint.
      for (let i = 0; i < 1_500; i++) insert.run(Buffer.alloc(4000, i % 256));
      const [state] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>;
      expect(state!.log).toBeGreaterThan(1_500);
      expect(state!.log).toBeLessThan(WAL_CHECKPOINT_PAGES);
    } finally {
      db.close();
    }
  });
});
