/**
 * Planned reminders behave the same on SQLite and on PostgreSQL: planned and replanned
 * under one key, due in order, found by the pipeline and identifier their notice gives
 * them (when planned, when the notice is stored, when it is renumbered), and what became
 * of each.
 */
import { describe, expect, it } from 'vitest';
import { on } from '../../../src/store/postgres/queryable.js';
import { PgReminderStore } from '../../../src/store/postgres/reminders.js';
import type { ReminderRow } from '../../../src/store/reminders.js';
import { insertRow, noticeRow, type Opened, STORES, sql } from '../../support/both-stores.js';

const NOW = '2026-11-22T12:00:00Z';

function reminders(o: Opened) {
  return o.kind === 'sqlite' ? o.store.reminders : new PgReminderStore(on(o.pool));
}

function row(over: Partial<ReminderRow> = {}): ReminderRow {
  return {
    rule: 'tetco-response',
    notice_id: 101,
    offset_ms: 7_200_000,
    field: 'response_at',
    deadline_at: '2026-11-22T16:00:00Z',
    due_at: '2026-11-22T14:00:00Z',
    status: 'scheduled',
    reason: null,
    ...over,
  };
}

/** Stores a notice as the notice store would: its row, then its waiting reminders told. */
async function storeNotice(o: Opened, id: number, identifier: string, pipeline_slug = 'transco') {
  await insertRow(o, 'notices', noticeRow(id, { identifier, pipeline_slug }));
  await reminders(o).noticeStored({ id, identifier, pipeline_slug });
}

describe.each(STORES)('%s (postgres and sqlite alike)', (_, open) => {
  it('plans a reminder under its key, and replans it in place', async () => {
    const r = reminders(await open());
    expect(await r.anyScheduled()).toBe(false);
    await r.plan(row(), NOW);
    await r.plan(row({ offset_ms: 1_800_000, due_at: '2026-11-22T15:30:00Z' }), NOW);
    await r.plan(row({ rule: 'ofo-response' }), NOW);
    expect(await r.anyScheduled()).toBe(true);
    // Replanned: a new deadline, the same key.
    const moved = row({ deadline_at: '2026-11-22T18:00:00Z', due_at: '2026-11-22T16:00:00Z' });
    await r.plan(moved, '2026-11-22T12:05:00Z');
    expect(await r.forRule('tetco-response', 101)).toEqual([
      row({ offset_ms: 1_800_000, due_at: '2026-11-22T15:30:00Z' }),
      moved,
    ]);
    expect(await r.forRule('tetco-response', 102)).toEqual([]);
    expect(await r.forNotice(101)).toEqual([
      row({ rule: 'ofo-response' }),
      moved,
      row({ offset_ms: 1_800_000, due_at: '2026-11-22T15:30:00Z' }),
    ]);
    expect(typeof (await r.all())[0]?.offset_ms).toBe('number');
  });

  it('records what became of a reminder, and no longer counts it scheduled', async () => {
    const o = await open();
    const r = reminders(o);
    await r.plan(row(), NOW);
    await r.setStatus(row(), 'sent', 'sent', '2026-11-22T14:00:00Z');
    expect(await r.forRule('tetco-response', 101)).toEqual([
      row({ status: 'sent', reason: 'sent' }),
    ]);
    expect(await r.anyScheduled()).toBe(false);
    expect(await sql(o, 'SELECT updated_at FROM reminders')).toEqual([
      { updated_at: '2026-11-22T14:00:00Z' },
    ]);
    // Nothing by that key: nothing changes.
    await r.setStatus(row({ notice_id: 999 }), 'cancelled', 'gone', NOW);
    expect(await r.all()).toEqual([row({ status: 'sent', reason: 'sent' })]);
  });

  it('gives the scheduled reminders due by now, the earliest first', async () => {
    const r = reminders(await open());
    const plan = async (over: Partial<ReminderRow>) => {
      await r.plan(row(over), NOW);
      return row(over);
    };
    const late = await plan({ rule: 'a-response', notice_id: 103, due_at: '2026-11-22T11:30:00Z' });
    const early = await plan({
      rule: 'z-response',
      notice_id: 102,
      due_at: '2026-11-22T10:00:00Z',
    });
    const now = await plan({ notice_id: 101, due_at: NOW });
    await plan({ notice_id: 104, due_at: '2026-11-22T09:00:00Z', status: 'sent', reason: 'sent' });
    await plan({ notice_id: 105, due_at: '2026-11-22T12:00:01Z' });
    expect(await r.due(NOW)).toEqual([early, late, now]);
  });

  it("gives the reminders still to be sent of a pipeline's other notices by identifier", async () => {
    const o = await open();
    const r = reminders(o);
    await storeNotice(o, 101, '26-0412');
    await storeNotice(o, 102, '26-0412');
    await storeNotice(o, 103, '26-0419');
    await storeNotice(o, 201, '26-0412', 'tennessee');
    const plan = async (over: Partial<ReminderRow>) => {
      await r.plan(row(over), NOW);
      return row(over);
    };
    const ahead = await plan({ offset_ms: 1_800_000, due_at: '2026-11-22T15:30:00Z' });
    const other = await plan({ rule: 'ofo-response', offset_ms: 1_800_000 });
    await plan({ offset_ms: 86_400_000, status: 'sent', reason: 'sent' });
    await plan({ offset_ms: 7_200_000, status: 'dropped', reason: 'skipped' });
    const second = await plan({ notice_id: 102 });
    await plan({ notice_id: 103 });
    await plan({ notice_id: 201 });
    // By notice, then rule, then offset.
    expect(await r.scheduledForIdentifier('transco', '26-0412', 102)).toEqual([other, ahead]);
    expect(await r.scheduledForIdentifier('transco', '26-0412', 999)).toEqual([
      other,
      ahead,
      second,
    ]);
    await r.setStatus(ahead, 'cancelled', 'superseded', NOW);
    expect(await r.scheduledForIdentifier('transco', '26-0412', 102)).toEqual([other]);
    expect(await r.scheduledForIdentifier('tennessee', '26-0419', 999)).toEqual([]);
  });

  it('a reminder planned before its notice is stored carries it once the notice is', async () => {
    const o = await open();
    const r = reminders(o);
    const carried = () =>
      sql(o, 'SELECT notice_id, pipeline_slug, identifier FROM reminders ORDER BY notice_id');
    await r.plan(row(), NOW);
    await r.plan(row({ notice_id: 103 }), NOW);
    await r.setStatus(row({ notice_id: 103 }), 'cancelled', 'test', NOW);
    expect(await r.scheduledForIdentifier('transco', '26-0412', 999)).toEqual([]);
    await storeNotice(o, 101, '26-0412');
    await storeNotice(o, 103, '26-0500');
    // A reminder no longer scheduled keeps what it carried: only the scheduled are read.
    expect(await carried()).toEqual([
      { notice_id: 101, pipeline_slug: 'transco', identifier: '26-0412' },
      { notice_id: 103, pipeline_slug: '', identifier: '' },
    ]);
    expect(await r.scheduledForIdentifier('transco', '26-0412', 999)).toEqual([row()]);
  });

  it('takes the pipeline and identifier given, or the stored notice’s, when planned', async () => {
    const o = await open();
    const r = reminders(o);
    await insertRow(o, 'notices', noticeRow(101, { identifier: '26-0412' }));
    await r.plan(row(), NOW);
    await r.plan(row({ notice_id: 102 }), NOW, { pipeline_slug: 'transco', identifier: '26-0412' });
    await r.plan(row({ notice_id: 103 }), NOW);
    expect(
      await sql(o, 'SELECT notice_id, pipeline_slug, identifier FROM reminders ORDER BY notice_id'),
    ).toEqual([
      { notice_id: 101, pipeline_slug: 'transco', identifier: '26-0412' },
      { notice_id: 102, pipeline_slug: 'transco', identifier: '26-0412' },
      { notice_id: 103, pipeline_slug: '', identifier: '' },
    ]);
  });

  it('follows a renumbered notice to its new identifier', async () => {
    const o = await open();
    const r = reminders(o);
    await storeNotice(o, 101, '26-0412');
    await storeNotice(o, 102, '26-0412');
    await r.plan(row(), NOW);
    await r.plan(row({ notice_id: 102 }), NOW);
    await sql(o, "UPDATE notices SET identifier = '26-0500' WHERE id = 102");
    expect(await r.scheduledForIdentifier('transco', '26-0412', 999)).toEqual([row()]);
    expect(await r.scheduledForIdentifier('transco', '26-0500', 999)).toEqual([
      row({ notice_id: 102 }),
    ]);
  });

  it('finds none for a notice id no row can have, as typed on the command line', async () => {
    const r = reminders(await open());
    await r.plan(row(), NOW);
    for (const id of [1e20, 1.5, Number.NaN]) {
      expect(await r.forNotice(id), String(id)).toEqual([]);
      expect(await r.forRule('tetco-response', id), String(id)).toEqual([]);
    }
  });

  it('gives every reminder, the furthest before its deadline first', async () => {
    const r = reminders(await open());
    await r.plan(row({ offset_ms: 3_600_000 }), NOW);
    await r.plan(row({ notice_id: 102, offset_ms: 86_400_000 }), NOW);
    await r.plan(row({ notice_id: 103, offset_ms: 600_000 }), NOW);
    expect((await r.all()).map((x) => [x.notice_id, x.offset_ms])).toEqual([
      [102, 86_400_000],
      [101, 3_600_000],
      [103, 600_000],
    ]);
  });
});
