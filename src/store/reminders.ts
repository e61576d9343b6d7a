/**
 * Deadline reminders as planned: one row per (deadline rule, notice, offset), with when
 * it falls due and what became of it. The alerts decide what to plan, move, send or
 * cancel; this only keeps the rows.
 */
import type { UtcIso } from '../lib/time.js';
import type { Notice } from '../upstream/schemas.js';
import type { Db } from './database.js';

/** What became of a reminder. */
export type ReminderStatus = 'scheduled' | 'sent' | 'cancelled' | 'dropped';

/** A row of the `reminders` table: one offset of one deadline rule for one notice. */
export interface ReminderRow {
  rule: string;
  notice_id: number;
  offset_ms: number;
  field: string;
  deadline_at: UtcIso;
  due_at: UtcIso;
  status: ReminderStatus;
  /** Why it was sent at once, skipped, cancelled or dropped; null while scheduled. */
  reason: string | null;
}

/** What names one reminder. */
export type ReminderKey = Pick<ReminderRow, 'rule' | 'notice_id' | 'offset_ms'>;

const COLUMNS = 'rule, notice_id, offset_ms, field, deadline_at, due_at, status, reason';

/** Reads and writes `reminders`; its statements are prepared once, when the store opens. */
export class ReminderStore {
  private readonly selectForRule;
  private readonly selectScheduledByIdentifier;
  private readonly selectDue;
  private readonly selectForNotice;
  private readonly selectAll;
  private readonly upsert;
  private readonly upsertOf;
  private readonly updateStatus;
  private readonly selectAnyScheduled;
  private readonly selectWaiting;
  private readonly giveWaiting;

  constructor(db: Db) {
    this.selectAnyScheduled = db.prepare(
      "SELECT 1 FROM reminders WHERE status = 'scheduled' LIMIT 1",
    );
    this.selectForRule = db.prepare<[string, number], ReminderRow>(
      `SELECT ${COLUMNS} FROM reminders WHERE rule = ? AND notice_id = ?`,
    );
    this.selectDue = db.prepare<[string], ReminderRow>(
      `SELECT ${COLUMNS} FROM reminders WHERE status = 'scheduled' AND due_at <= ? ORDER BY due_at`,
    );
    this.selectScheduledByIdentifier = db.prepare<[string, string, number], ReminderRow>(
      `SELECT ${COLUMNS} FROM reminders
       WHERE status = 'scheduled' AND pipeline_slug = ? AND identifier = ? AND notice_id != ?
         AND EXISTS (SELECT 1 FROM notices WHERE id = reminders.notice_id
           AND pipeline_slug = reminders.pipeline_slug AND identifier = reminders.identifier)
       ORDER BY notice_id, rule, offset_ms`,
    );
    this.selectForNotice = db.prepare<[number], ReminderRow>(
      `SELECT ${COLUMNS} FROM reminders WHERE notice_id = ? ORDER BY offset_ms DESC`,
    );
    this.selectAll = db.prepare<[], ReminderRow>(
      `SELECT ${COLUMNS} FROM reminders ORDER BY offset_ms DESC`,
    );
    // The notice's pipeline and identifier go with it, for `scheduledForIdentifier`:
    // as the caller gives them, or as the notice is stored.
    const upsert = (pipeline: string, identifier: string) =>
      db.prepare(
        `INSERT INTO reminders (rule, notice_id, offset_ms, field, deadline_at, due_at, status, reason, updated_at,
           pipeline_slug, identifier)
         VALUES (@rule, @notice_id, @offset_ms, @field, @deadline_at, @due_at, @status, @reason, @now,
           ${pipeline}, ${identifier})
         ON CONFLICT (rule, notice_id, offset_ms) DO UPDATE SET deadline_at = excluded.deadline_at,
           due_at = excluded.due_at, status = excluded.status, reason = excluded.reason, updated_at = excluded.updated_at,
           pipeline_slug = excluded.pipeline_slug, identifier = excluded.identifier`,
      );
    this.upsert = upsert(
      "coalesce((SELECT pipeline_slug FROM notices WHERE id = @notice_id), '')",
      "coalesce((SELECT identifier FROM notices WHERE id = @notice_id), '')",
    );
    this.upsertOf = upsert('@pipeline_slug', '@identifier');
    // Found by a read first: an UPDATE searching the index of the columns it changes
    // collects the rows in a table of its own before it writes them, which costs each
    // stored notice more than the insert's own lookups, though nearly none has a reminder
    // waiting.
    this.selectWaiting = db
      .prepare<[number], number>(
        `SELECT rowid FROM reminders
         WHERE status = 'scheduled' AND pipeline_slug = '' AND identifier = '' AND notice_id = ?`,
      )
      .pluck();
    this.giveWaiting = db.prepare<[string, string, number]>(
      'UPDATE reminders SET pipeline_slug = ?, identifier = ? WHERE rowid = ?',
    );
    this.updateStatus = db.prepare(
      'UPDATE reminders SET status = ?, reason = ?, updated_at = ? WHERE rule = ? AND notice_id = ? AND offset_ms = ?',
    );
  }

  /** A rule's reminders for a notice, every status. */
  forRule(rule: string, noticeId: number): ReminderRow[] {
    return this.selectForRule.all(rule, noticeId);
  }

  /**
   * The reminders still to be sent of a pipeline's other notices that carry `identifier`
   * (the pipeline's own notice number), by notice: those a notice naming that number
   * supersedes. Read from the scheduled reminders by the pipeline and identifier each
   * carries (given when it is planned or when its notice is stored, `noticeStored`, and
   * moved with a changed identifier by a trigger), so that no index of the notices by
   * identifier is kept (every stored notice paid for one), and no reminder of another
   * notice is read.
   */
  scheduledForIdentifier(
    pipelineSlug: string,
    identifier: string,
    exceptNoticeId: number,
  ): ReminderRow[] {
    return this.selectScheduledByIdentifier.all(pipelineSlug, identifier, exceptNoticeId);
  }

  /** Whether any reminder is still to be sent. */
  anyScheduled(): boolean {
    return this.selectAnyScheduled.get() !== undefined;
  }

  /** Reminders still to be sent that are due at `now`, the earliest first. */
  due(now: UtcIso): ReminderRow[] {
    return this.selectDue.all(now);
  }

  /** A notice's reminders, every rule and status, the furthest before the deadline first. */
  forNotice(noticeId: number): ReminderRow[] {
    return this.selectForNotice.all(noticeId);
  }

  /** Every reminder, the furthest before its deadline first (for many notices at once). */
  all(): ReminderRow[] {
    return this.selectAll.all();
  }

  /** Plans (or replans) one reminder; `at` is when; `notice`, its notice as stored, when at hand. */
  plan(row: ReminderRow, at: UtcIso, notice?: { pipeline_slug: string; identifier: string }): void {
    if (notice)
      this.upsertOf.run({
        ...row,
        now: at,
        pipeline_slug: notice.pipeline_slug,
        identifier: notice.identifier,
      });
    else this.upsert.run({ ...row, now: at });
  }

  /**
   * Gives the scheduled reminders planned before `notice` was stored, which carry no
   * pipeline and identifier (''), the notice's, so that a notice superseding it finds
   * them (`scheduledForIdentifier`). The notice store calls it for each notice whose row
   * it inserts, in the same transaction. The store's own statements, not a trigger on the
   * notices, which cost every insert of a notice more than the insert (see the migration
   * that dropped `notices_insert_reminders`).
   */
  noticeStored(notice: Pick<Notice, 'id' | 'pipeline_slug' | 'identifier'>): void {
    for (const rowid of this.selectWaiting.all(notice.id))
      this.giveWaiting.run(notice.pipeline_slug, notice.identifier, rowid);
  }

  /** Records what became of one reminder, and why; `at` is when. */
  setStatus(key: ReminderKey, status: ReminderStatus, reason: string, at: UtcIso): void {
    this.updateStatus.run(status, reason, at, key.rule, key.notice_id, key.offset_ms);
  }
}
