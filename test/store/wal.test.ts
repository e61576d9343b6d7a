import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, WAL_CHECKPOINT_PAGES } from '../../src/store/database.js';
import { useTempDir } from '../support/temp-store.js';

const temp = useTempDir('pipewatch-wal-');

describe('the write-ahead log', () => {
  it('checkpoints every 10,000 pages, not every 1,000', () => {
    const db = openDatabase(join(temp.dir, 'pipewatch.db'));
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
