/**
 * The reminder rows' own statements: which reminders of the notices a superseding notice
 * names are still to be sent, and which are due, in the order they fell due.
 */
import { describe, expect, it } from 'vitest';
import type { ReminderRow } from '../../src/store/reminders.js';
import { makeNotice } from '../fakes/notice.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-reminders-');

const NOW = '2026-11-22T12:00:00Z';

function plan(over: Partial<ReminderRow>): ReminderRow {
  const row: ReminderRow = {
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
  temp.store.reminders.plan(row, NOW);
  return row;
}

describe('reminder store', () => {
  it("gives the reminders still to be sent of a pipeline's other notices by identifier", () => {
    const stored = (id: number, identifier: string, pipeline_slug = 'transco') =>
      temp.store.notices.upsert(makeNotice({ id, identifier, pipeline_slug }), NOW, false);
    stored(101, '26-0412');
    stored(102, '26-0412');
    stored(103, '26-0419');
    stored(201, '26-0412', 'tennessee');
    const ahead = plan({ offset_ms: 1_800_000, due_at: '2026-11-22T15:30:00Z' });
    const other = plan({ rule: 'ofo-response', offset_ms: 1_800_000 });
    plan({ offset_ms: 86_400_000, status: 'sent', reason: 'sent' });
    plan({ offset_ms: 7_200_000, status: 'dropped', reason: 'skipped' });
    const second = plan({ notice_id: 102 });
    plan({ notice_id: 103 });
    plan({ notice_id: 201 });
    // By notice, then rule, then offset.
    expect(temp.store.reminders.scheduledForIdentifier('transco', '26-0412', 102)).toEqual([
      other,
      ahead,
    ]);
    expect(temp.store.reminders.scheduledForIdentifier('transco', '26-0412', 999)).toEqual([
      other,
      ahead,
      second,
    ]);
    temp.store.reminders.setStatus(ahead, 'cancelled', 'superseded', NOW);
    expect(temp.store.reminders.scheduledForIdentifier('transco', '26-0412', 102)).toEqual([other]);
    expect(temp.store.reminders.scheduledForIdentifier('tennessee', '26-0419', 999)).toEqual([]);
  });

  it('gives the scheduled reminders due by now, the earliest first', () => {
    const late = plan({ notice_id: 103, due_at: '2026-11-22T11:30:00Z' });
    const early = plan({ notice_id: 102, due_at: '2026-11-22T10:00:00Z' });
    const now = plan({ notice_id: 101, due_at: NOW });
    plan({ notice_id: 104, due_at: '2026-11-22T09:00:00Z', status: 'sent', reason: 'sent' });
    plan({ notice_id: 105, due_at: '2026-11-22T12:00:01Z' });
    expect(temp.store.reminders.due(NOW)).toEqual([early, late, now]);
  });
});
