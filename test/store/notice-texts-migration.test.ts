/**
 * Migration 8 on a database written before it: notice texts move into one compressed
 * body and read back exactly, history reads back whole, and the file is rewritten once
 * for incremental vacuum.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE, openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { noticeHash } from '../../src/store/notices.js';
import { makeNotice } from '../fakes/notice.js';
import { useTempDir } from '../support/temp-store.js';

const temp = useTempDir('pipewatch-migration-8-');

const v1 = makeNotice({
  notice: 'Station 165: limited to 300 MDth/d. «Gas day» 2026-11-21 — ✓',
  html: '<p>Station 165: limited to 300 MDth/d.</p>',
  mobile: '<div><p>Station 165: limited.</p></div>',
});
const v2 = { ...v1, status: 'Supersede', notice: 'Station 165: back to full.' };

/** A database as pipewatch wrote it before migration 8: three text columns, whole history. */
function writeOldDatabase() {
  const db = openDatabase(join(temp.dir, DATABASE_FILE), MIGRATIONS.slice(0, 7));
  db.pragma('auto_vacuum = NONE');
  db.exec('VACUUM');
  const columns = Object.keys(v2);
  db.prepare(
    `INSERT INTO notices (${columns.join(', ')}, content_hash, version, first_seen_at, last_seen_at, last_changed_at)
     VALUES (${columns.map((c) => `@${c}`).join(', ')}, @hash, 2, @at, @at, @at)`,
  ).run({ ...v2, hash: noticeHash(v2), at: '2026-11-20T15:00:00Z' });
  db.prepare(
    'INSERT INTO notice_history (notice_id, version, changed_at, changed_fields, previous) VALUES (?, 1, ?, ?, ?)',
  ).run(101, '2026-11-20T15:00:00Z', JSON.stringify(['status', 'notice']), JSON.stringify(v1));
  db.close();
}

describe('migration 8', () => {
  it('moves texts into bodies that read back exactly, and history whole', () => {
    writeOldDatabase();
    const said: string[] = [];
    const store = Store.open(temp.dir, { info: (m) => said.push(m) });
    try {
      const raw = store.db
        .prepare('SELECT notice, html, mobile, body FROM notices')
        .get() as Record<string, unknown>;
      expect([raw.notice, raw.html, raw.mobile]).toEqual(['', '', '']);
      expect(raw.body).toBeInstanceOf(Buffer);
      expect(store.notices.get(101)).toMatchObject(v2);
      expect(store.notices.at(101, 1)).toEqual(v1);
      expect(store.notices.history(101).map((h) => h.previous)).toEqual([v1]);
      const history = store.db.prepare('SELECT previous FROM notice_history').get() as {
        previous: string;
      };
      expect(JSON.parse(history.previous)).toEqual({ status: 'Initiate' });
      // Unchanged as far as dedupe goes: the same notice again is nothing new.
      expect(store.notices.upsert(v2, '2026-11-20T16:00:00Z', false).change).toBe('unchanged');

      expect(store.db.pragma('auto_vacuum', { simple: true })).toBe(2);
      expect(said[0]).toMatch(/rewriting .* once for incremental vacuum/);
    } finally {
      store.close();
    }
    const again: string[] = [];
    Store.open(temp.dir, { info: (m) => again.push(m) }).close();
    expect(again).toEqual([]);
  });
});
