/**
 * Deadline reminders as planned, on PostgreSQL, with the methods of `ReminderStore`
 * (`../reminders.ts`), each answering a promise of what the SQLite one returns.
 *
 * Where SQLite's order is only that of the index it reads, it is written out: `forRule`
 * by offset and `forNotice`'s equal offsets by rule (the primary key's order). `due` and
 * `all` give rows equal in what they order by in key order (rule, notice, offset), where
 * SQLite gives them in the order they were first planned (its rowid); nothing reading
 * them depends on that order.
 */
import type { UtcIso } from '../../lib/time.js';
import type { Notice } from '../../upstream/schemas.js';
import type { ReminderKey, ReminderRow, ReminderStatus } from '../reminders.js';
import { type Connection, canBeId } from './queryable.js';

const COLUMNS = 'rule, notice_id, offset_ms, field, deadline_at, due_at, status, reason';

/** The reminders a statement selects (`COLUMNS`). */
async function reminderRows(
  db: Connection,
  sql: string,
  values: unknown[],
): Promise<ReminderRow[]> {
  return (await db().query<ReminderRow>(sql, values)).rows;
}

/** Reads and writes `reminders` (see `ReminderStore`). */
export class PgReminderStore {
  constructor(private readonly db: Connection) {}

  /** A rule's reminders for a notice, every status, by offset. */
  async forRule(rule: string, noticeId: number): Promise<ReminderRow[]> {
    if (!canBeId(noticeId)) return [];
    return reminderRows(
      this.db,
      `SELECT ${COLUMNS} FROM reminders WHERE rule = $1 AND notice_id = $2 ORDER BY offset_ms`,
      [rule, noticeId],
    );
  }

  /**
   * The reminders still to be sent of a pipeline's other notices that carry `identifier`,
   * by notice (see `ReminderStore.scheduledForIdentifier`).
   */
  async scheduledForIdentifier(
    pipelineSlug: string,
    identifier: string,
    exceptNoticeId: number,
  ): Promise<ReminderRow[]> {
    return reminderRows(
      this.db,
      `SELECT ${COLUMNS} FROM reminders
       WHERE status = 'scheduled' AND pipeline_slug = $1 AND identifier = $2 AND notice_id != $3
         AND EXISTS (SELECT 1 FROM notices WHERE id = reminders.notice_id
           AND pipeline_slug = reminders.pipeline_slug AND identifier = reminders.identifier)
       ORDER BY notice_id, rule, offset_ms`,
      [pipelineSlug, identifier, exceptNoticeId],
    );
  }

  /** Whether any reminder is still to be sent. */
  async anyScheduled(): Promise<boolean> {
    const result = await this.db().query(
      "SELECT 1 FROM reminders WHERE status = 'scheduled' LIMIT 1",
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Reminders still to be sent that are due at `now`, the earliest first. */
  async due(now: UtcIso): Promise<ReminderRow[]> {
    return reminderRows(
      this.db,
      `SELECT ${COLUMNS} FROM reminders WHERE status = 'scheduled' AND due_at <= $1
       ORDER BY due_at, rule, notice_id, offset_ms`,
      [now],
    );
  }

  /** A notice's reminders, every rule and status, the furthest before the deadline first. */
  async forNotice(noticeId: number): Promise<ReminderRow[]> {
    if (!canBeId(noticeId)) return [];
    return reminderRows(
      this.db,
      `SELECT ${COLUMNS} FROM reminders WHERE notice_id = $1 ORDER BY offset_ms DESC, rule`,
      [noticeId],
    );
  }

  /** Every reminder, the furthest before its deadline first (for many notices at once). */
  async all(): Promise<ReminderRow[]> {
    return reminderRows(
      this.db,
      `SELECT ${COLUMNS} FROM reminders ORDER BY offset_ms DESC, rule, notice_id`,
      [],
    );
  }

  /**
   * Plans (or replans) one reminder; `at` is when; `notice`, its notice as stored, when at
   * hand. Without it, the notice's pipeline and identifier are read from `notices` ('' when
   * it is not stored yet), as on SQLite.
   */
  async plan(
    row: ReminderRow,
    at: UtcIso,
    notice?: { pipeline_slug: string; identifier: string },
  ): Promise<void> {
    await this.db().query(
      `INSERT INTO reminders (rule, notice_id, offset_ms, field, deadline_at, due_at, status, reason, updated_at,
         pipeline_slug, identifier)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,
         coalesce($10::text, (SELECT pipeline_slug FROM notices WHERE id = $2), ''),
         coalesce($11::text, (SELECT identifier FROM notices WHERE id = $2), ''))
       ON CONFLICT (rule, notice_id, offset_ms) DO UPDATE SET deadline_at = excluded.deadline_at,
         due_at = excluded.due_at, status = excluded.status, reason = excluded.reason, updated_at = excluded.updated_at,
         pipeline_slug = excluded.pipeline_slug, identifier = excluded.identifier`,
      [
        row.rule,
        row.notice_id,
        row.offset_ms,
        row.field,
        row.deadline_at,
        row.due_at,
        row.status,
        row.reason,
        at,
        notice?.pipeline_slug ?? null,
        notice?.identifier ?? null,
      ],
    );
  }

  /**
   * Gives the scheduled reminders planned before `notice` was stored, which carry no
   * pipeline and identifier (''), the notice's (see `ReminderStore.noticeStored`). One
   * UPDATE: SQLite's read of the rows first is for its own planner.
   */
  async noticeStored(notice: Pick<Notice, 'id' | 'pipeline_slug' | 'identifier'>): Promise<void> {
    await this.db().query(
      `UPDATE reminders SET pipeline_slug = $1, identifier = $2
       WHERE status = 'scheduled' AND pipeline_slug = '' AND identifier = '' AND notice_id = $3`,
      [notice.pipeline_slug, notice.identifier, notice.id],
    );
  }

  /** Records what became of one reminder, and why; `at` is when. */
  async setStatus(
    key: ReminderKey,
    status: ReminderStatus,
    reason: string,
    at: UtcIso,
  ): Promise<void> {
    await this.db().query(
      `UPDATE reminders SET status = $1, reason = $2, updated_at = $3
       WHERE rule = $4 AND notice_id = $5 AND offset_ms = $6`,
      [status, reason, at, key.rule, key.notice_id, key.offset_ms],
    );
  }
}
