/**
 * The reminders a superseding notice cancels are found by the pipeline and identifier
 * each scheduled reminder carries: copied from its notice when the reminders were
 * planned before the store had them, when a reminder is planned before its notice is
 * stored, and again when a notice's identifier changes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import { ingestNoticePage } from '../../src/ingest/notice-sync.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { DeadlineRule } from '../../src/rules/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { DATABASE_FILE, openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { NoticeStore } from '../../src/store/notices.js';
import type { ReminderRow } from '../../src/store/reminders.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { makeNotice } from '../fakes/notice.js';
import { ManualClock } from '../support/clock.js';
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

/** The pipeline and identifier each reminder carries, by notice. */
const carried = (store: Store) =>
  store.db
    .prepare('SELECT notice_id, pipeline_slug, identifier FROM reminders ORDER BY notice_id')
    .all();

describe('a reminder stored before its notice', () => {
  it('carries the pipeline and identifier of its notice once a sync stores the notice', async () => {
    const store = Store.open(temp.dir);
    store.reminders.plan(row(101), NOW);
    expect(carried(store)).toEqual([{ notice_id: 101, pipeline_slug: '', identifier: '' }]);
    const page = (notices: Notice[]) =>
      ingestNoticePage(asyncStoreOf(store), notices, {
        seenAt: NOW,
        baseline: false,
        alertableAfter: '2026-11-01T00:00:00Z',
        pipelines: new Set(),
      });
    await page([makeNotice({ id: 101, identifier: '26-0412' }), makeNotice({ id: 102 })]);
    expect(carried(store)).toEqual([
      { notice_id: 101, pipeline_slug: 'transco', identifier: '26-0412' },
    ]);
    // A reminder no longer scheduled keeps what it carried: only the scheduled are read.
    store.reminders.plan(row(103), NOW);
    store.reminders.setStatus(row(103), 'cancelled', 'test', NOW);
    await page([makeNotice({ id: 103, identifier: '26-0500' })]);
    expect(carried(store).at(-1)).toEqual({ notice_id: 103, pipeline_slug: '', identifier: '' });
    store.close();
  });

  it('carries them when a notice retention removed comes back', () => {
    const store = Store.open(temp.dir);
    store.notices.upsert(makeNotice({ id: 101, identifier: '26-0412' }), NOW, false);
    store.retention.prune('2026-12-31T00:00:00Z', '2026-12-31T00:00:00Z');
    expect(store.notices.wasPruned(101)).toBe(true);
    store.reminders.plan(row(101), NOW);
    store.notices.upsert(makeNotice({ id: 101, identifier: '26-0412' }), NOW, false);
    expect(store.reminders.scheduledForIdentifier('transco', '26-0412', 999)).toEqual([row(101)]);
    store.close();
  });

  it('is cancelled by a notice that supersedes its notice', async () => {
    const store = Store.open(temp.dir);
    const deadlines: DeadlineRule = {
      kind: 'deadlines',
      name: 'transco-response',
      at: { file: 'rules/test.yaml', line: 1, col: 1 },
      field: 'response_at',
      beforeMs: [7_200_000],
      filter: { pipelines: ['transco'] },
      notify: [{ kind: 'console' }],
    };
    const engine = new AlertEngine(
      {
        store: asyncStoreOf(store),
        clock: new ManualClock(NOW),
        logger: silentLogger,
        maxAlertAgeMs: 86_400_000,
      },
      [deadlines],
    );
    // Planned by a rule other than the one in force, which leaves it as it is.
    store.reminders.plan(row(101), NOW);
    const page = (notice: Notice) =>
      ingestNoticePage(asyncStoreOf(store), [notice], {
        seenAt: NOW,
        baseline: false,
        alertableAfter: '2026-11-01T00:00:00Z',
        pipelines: new Set(),
        hooks: engine.hooks(),
      });
    await page(makeNotice({ id: 101, identifier: '26-0412', response_at: null }));
    await page(
      makeNotice({
        id: 102,
        identifier: '26-0419',
        status: 'Supersede',
        notice: 'This notice supersedes Notice ID 26-0412. Capacity remains limited.',
      }),
    );
    expect(store.reminders.forNotice(101).map((r) => [r.status, r.reason])).toEqual([
      ['cancelled', 'superseded by notice #102 (Supersede)'],
    ]);
    store.close();
  });

  it('is given them by the migration that dropped the trigger, which leaves none on storing a notice', () => {
    const migration = MIGRATIONS.findIndex((m) =>
      m.name.startsWith('a stored notice gives its waiting reminders'),
    );
    expect(migration).toBeGreaterThan(0);
    const before = openDatabase(join(temp.dir, DATABASE_FILE), MIGRATIONS.slice(0, migration));
    new NoticeStore(before).upsert(makeNotice({ id: 101, identifier: '26-0412' }), NOW, false);
    // Written past the store, as no version of it wrote: scheduled, its notice stored, and
    // carrying nothing.
    before
      .prepare(
        `INSERT INTO reminders (rule, notice_id, offset_ms, field, deadline_at, due_at, status, reason, updated_at)
         VALUES (@rule, @notice_id, @offset_ms, @field, @deadline_at, @due_at, @status, @reason, '${NOW}')`,
      )
      .run(row(101));
    before.close();
    const store = Store.open(temp.dir);
    expect(store.reminders.scheduledForIdentifier('transco', '26-0412', 999)).toEqual([row(101)]);
    // No trigger on storing a notice: any would cost every insert a statement journal.
    expect(
      store.db
        .prepare(
          "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'notices' AND sql LIKE '%INSERT ON%'",
        )
        .all(),
    ).toEqual([]);
    store.close();
  });
});
