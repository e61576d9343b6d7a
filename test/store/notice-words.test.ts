/**
 * The words of the stored notices' types, categories and statuses, which chat commands are
 * checked against: recorded as notices are stored or change, lower-cased, each once, blanks
 * left out, and not lost with a transaction that fails; and on a database written before
 * migration 9, gathered from the notices there.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE, openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { makeNotice } from '../fakes/notice.js';
import { useTempDir } from '../support/temp-store.js';

const temp = useTempDir('pipewatch-notice-words-');

const SEEN = '2026-11-20T15:00:00Z';

describe('the notice vocabulary', () => {
  it('holds each word of the stored notices once, lower-cased, blanks left out', () => {
    const store = Store.open(temp.dir);
    try {
      const n = (id: number, type: string, category: string, status: string) =>
        makeNotice({ id, type, category, status });
      store.notices.upsert(n(1, 'Capacity Constraint', 'CRITICAL', 'Initiate'), SEEN, false);
      store.notices.upsert(n(2, 'capacity constraint', 'Critical', ''), SEEN, true);
      store.notices.upsert(n(3, 'Maintenance', '', 'INITIATE'), SEEN, false);
      expect(store.notices.vocabulary()).toEqual({
        types: ['capacity constraint', 'maintenance'],
        categories: ['critical'],
        statuses: ['initiate'],
      });
      // A notice that changes brings its new words.
      store.notices.upsert(n(3, 'Maintenance', 'Non-Critical', 'Terminate'), SEEN, false);
      expect(store.notices.vocabulary()).toEqual({
        types: ['capacity constraint', 'maintenance'],
        categories: ['critical', 'non-critical'],
        statuses: ['initiate', 'terminate'],
      });
    } finally {
      store.close();
    }
  });

  it('keeps a word whose first notice was rolled back, once a notice brings it again', () => {
    const store = Store.open(temp.dir);
    try {
      const failing = () =>
        store.transaction(() => {
          store.notices.upsert(makeNotice({ id: 1, type: 'Gas Quality' }), SEEN, false);
          throw new Error('the page failed after its first notice');
        });
      expect(failing).toThrow('the page failed');
      expect(store.notices.vocabulary().types).toEqual([]);
      store.transaction(() =>
        store.notices.upsert(makeNotice({ id: 2, type: 'Gas Quality' }), SEEN, false),
      );
      expect(store.notices.vocabulary().types).toEqual(['gas quality']);
    } finally {
      store.close();
    }
  });

  it('is gathered from the notices of a database written before migration 9', () => {
    const db = openDatabase(join(temp.dir, DATABASE_FILE), MIGRATIONS.slice(0, 8));
    const notice = makeNotice({ type: 'Force Majeure', category: 'Critical', status: '' });
    db.prepare(
      `INSERT INTO notices (id, pipeline_id, pipeline_name, pipeline_slug, pipeline_url, subject,
         identifier, url, category, type, status, notice, html, mobile, content_hash,
         first_seen_at, last_seen_at, last_changed_at)
       VALUES (@id, @pipeline_id, @pipeline_name, @pipeline_slug, @pipeline_url, @subject,
         @identifier, @url, @category, @type, @status, '', '', '', 'x', @at, @at, @at)`,
    ).run({ ...notice, at: SEEN });
    db.close();
    const store = Store.open(temp.dir);
    try {
      expect(store.notices.vocabulary()).toEqual({
        types: ['force majeure'],
        categories: ['critical'],
        statuses: [],
      });
      const indexes = store.db
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'notices'")
        .all();
      expect(indexes).toEqual([{ name: 'notices_posted' }]);
    } finally {
      store.close();
    }
  });
});
