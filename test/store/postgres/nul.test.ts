/**
 * U+0000, which SQLite keeps and PostgreSQL text cannot hold: a write that holds one
 * (in plain text, or as `\u0000` in JSON cast to jsonb) is stored with U+FFFD in its
 * place instead of failing, through a repository and through a copy from SQLite.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/store/database.js';
import { Store } from '../../../src/store/index.js';
import { PgAckStore } from '../../../src/store/postgres/chat-state.js';
import { connectPostgres } from '../../../src/store/postgres/connect.js';
import { copyToPostgres } from '../../../src/store/postgres/copy.js';
import { migratePostgres } from '../../../src/store/postgres/migrate.js';
import { on, storableText } from '../../../src/store/postgres/queryable.js';
import { usePostgresDatabase } from '../../support/postgres.js';
import { useTempDir } from '../../support/temp-store.js';

const pg = usePostgresDatabase({ each: true });
const temp = useTempDir('pipewatch-nul-');
const NOW = '2026-11-20T15:00:00Z';

describe('U+0000 on PostgreSQL', () => {
  it('becomes U+FFFD, and its JSON escape the escape of U+FFFD; other text is left alone', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText('{"v":"a\\u0000b"}')).toBe('{"v":"a\\ufffdb"}');
    expect(JSON.parse(storableText('{"v":"a\\u0000b"}'))).toEqual({ v: 'a\uFFFDb' });
    const plain = 'Station 85 — "quoted" \\n';
    expect(storableText(plain)).toBe(plain);
  });

  it('a repository stores a text holding it, and jsonb takes the JSON escape', async () => {
    const pool = await connectPostgres(pg.url);
    try {
      await migratePostgres(pool, 'the test database');
      const acks = new PgAckStore(on(pool));
      const ack = await acks.acknowledge('slack', 'C0GAS', '1.1', 'U0\u0000ALICE', NOW);
      expect(ack.already).toBe(false);
      expect(await acks.of('slack', 'C0GAS', '1.1')).toEqual({ by: 'U0\uFFFDALICE', at: NOW });
      const { rows } = await on(pool)().query<{ v: string }>("SELECT ($1::jsonb)->>'v' AS v", [
        '{"v":"a\\u0000b"}',
      ]);
      expect(rows[0]?.v).toBe('a\uFFFDb');
    } finally {
      await pool.end();
    }
  });

  it('a copy from SQLite carries a text holding it', async () => {
    const file = join(temp.dir, 'source.db');
    const store = new Store(openDatabase(file));
    store.acks.acknowledge('slack', 'C0GAS', '1.1', 'U0\u0000ALICE', NOW);
    store.close();
    const source = new Database(file, { readonly: true });
    const pool = await connectPostgres(pg.url);
    try {
      const counts = await copyToPostgres(source, pool, 'the test database');
      expect(counts.acks).toBe(1);
      const { rows } = await pool.query<{ by: string }>('SELECT by FROM acks');
      expect(rows).toEqual([{ by: 'U0\uFFFDALICE' }]);
    } finally {
      source.close();
      await pool.end();
    }
  });
});
