/**
 * Escalations as planned: one row per escalating notice rule and notice, from the rule's
 * first alert of it, with what became of it. The alerts decide when to escalate, drop or
 * resolve (`alerts/escalations.ts`); this only keeps the rows.
 */
import type { UtcIso } from '../lib/time.js';
import { type Db, statement } from './database.js';

/**
 * `pending`: waiting for its time or an acknowledgement; `escalated`: sent to the
 * escalation targets, watched for a late acknowledgement or the notice's end;
 * `acknowledged`: someone acknowledged in time, nothing was escalated; `resolved`: an
 * escalated one acknowledged late, or whose notice ended; `dropped`: its rule no longer
 * escalates, or the notice ended before anyone needed paging.
 */
export type EscalationStatus = 'pending' | 'escalated' | 'acknowledged' | 'resolved' | 'dropped';

/** A row of the `escalations` table. */
export interface EscalationRow {
  rule: string;
  notice_id: number;
  /** When the rule first alerted about the notice: the wait runs from then. */
  alerted_at: UtcIso;
  status: EscalationStatus;
  decided_at: UtcIso | null;
}

const COLUMNS = 'rule, notice_id, alerted_at, status, decided_at';

/** Reads and writes `escalations`. */
export class EscalationStore {
  constructor(private readonly db: Db) {}

  /** Plans the escalation of a notice by a rule, unless it is planned already; whether it was new. */
  plan(rule: string, noticeId: number, alertedAt: UtcIso): boolean {
    return (
      statement(
        this.db,
        `INSERT INTO escalations (rule, notice_id, alerted_at, status)
         VALUES (?, ?, ?, 'pending') ON CONFLICT (rule, notice_id) DO NOTHING`,
      ).run(rule, noticeId, alertedAt).changes > 0
    );
  }

  /** Those still to decide or to watch, oldest first. */
  open(): EscalationRow[] {
    return statement<[], EscalationRow>(
      this.db,
      `SELECT ${COLUMNS} FROM escalations WHERE status IN ('pending', 'escalated')
       ORDER BY alerted_at, rule, notice_id`,
    ).all();
  }

  /** Whether any is still to decide or to watch: while none is, the alerts feed looks no further. */
  anyOpen(): boolean {
    return (
      statement(
        this.db,
        "SELECT 1 FROM escalations WHERE status IN ('pending', 'escalated') LIMIT 1",
      ).get() !== undefined
    );
  }

  /** Records what became of one. */
  decide(rule: string, noticeId: number, status: EscalationStatus, at: UtcIso): void {
    statement(
      this.db,
      'UPDATE escalations SET status = ?, decided_at = ? WHERE rule = ? AND notice_id = ?',
    ).run(status, at, rule, noticeId);
  }

  /** Every escalation of a notice, for `why`. */
  forNotice(noticeId: number): EscalationRow[] {
    return statement<[number], EscalationRow>(
      this.db,
      `SELECT ${COLUMNS} FROM escalations WHERE notice_id = ? ORDER BY rule`,
    ).all(noticeId);
  }
}
