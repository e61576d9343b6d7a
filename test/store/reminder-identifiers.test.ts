/**
 * The reminders a superseding notice cancels are found by the pipeline and identifier
 * each scheduled reminder carries: copied from its notice when the reminders were
 * planned before the store had them, when a reminder is planned before its notice is
 * stored, and again when a notice's identifier changes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE, openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { NoticeStore } from '../../src/store/notices.js';
import type { ReminderRow } from '../../src/store/reminders.js';
import { makeNotice } from '../fakes/notice.js';
import { useTempDir } from '../support/temp-store.js';

const temp = useTempDir('pipewatch-reminder-identifiers-');

const NOW = '2026-11-22T12:00:00Z';

const row = (notice_id: number, rule = 'tetco-response'): ReminderRow => ({
  rule,
  notice_id,
  offset_ms: 7_200_000,
  field: 'response_at',
  deadline_at: '2026-11-22T16:00:00Z',
  due_at: '2026-11-22T14:00:00Z',
  status: 'scheduled',
  reason: null,
});

describe('reminders by their notice identifier', () => {
  it('are found for the reminders a database held before they carried it', () => {
    const migration = MIGRATIONS.findIndex((m) =>
      m.name.startsWith('reminders carry their notice'),
    );
    expect(migration).toBeGreaterThan(0);
    const before = openDatabase(join(temp.dir, DATABASE_FILE), MIGRATIONS.slice(0, migration));
    const notices = new NoticeStore(before);
    notices.upsert(makeNotice({ id: 101, identifier: '26-0412' }), NOW, false);
    notices.upsert(makeNotice({ id: 102, identifier: '26-0419' }), NOW, false);
    before
      .prepare(
        `INSERT INTO reminders (rule, notice_id, offset_ms, field, deadline_at, due_at, status, reason, updated_at)
         VALUES (@rule, @notice_id, @offset_ms, @field, @deadline_at, @due_at, @status, @reason, '${NOW}')`,
      )
      .run(row(101));
    before.close();

    const store = Store.open(temp.dir);
    expect(store.reminders.scheduledForIdentifier('transco', '26-0412', 999)).toEqual([row(101)]);
    expect(store.reminders.scheduledForIdentifier('transco', '26-0419', 999)).toEqual([]);
    store.close();
  });

  it('are found when the notice is stored after its reminder, and by its new identifier', () => {
    const store = Store.open(temp.dir);
    store.reminders.plan(row(101), NOW);
    store.reminders.plan(row(102), NOW);
    expect(store.reminders.scheduledForIdentifier('transco', '26-0412', 999)).toEqual([]);
    store.notices.upsert(makeNotice({ id: 101, identifier: '26-0412' }), NOW, false);
    store.notices.upsert(makeNotice({ id: 102, identifier: '26-0412' }), NOW, false);
    expect(store.reminders.scheduledForIdentifier('transco', '26-0412', 999)).toEqual([
      row(101),
      row(102),
    ]);
    store.notices.upsert(
      makeNotice({ id: 102, identifier: '26-0500', subject: 'Renumbered' }),
      '2026-11-22T12:05:00Z',
      false,
    );
    expect(store.reminders.scheduledForIdentifier('transco', '26-0412', 999)).toEqual([row(101)]);
    expect(store.reminders.scheduledForIdentifier('transco', '26-0500', 999)).toEqual([row(102)]);
    store.close();
  });
});
