/**
 * The audit trail: each decision a rule made on an event, with the reason when it did not
 * alert. `pipewatch why` reads it. Rules that could not match an event (by pipeline or
 * type, through the index) are not written, to keep the table proportional to alerts;
 * `why` works those out from the current rules. Nor is a notice rule's alert: the outbox
 * rows it queued record it, and `why` reads them as its decision.
 */

import type { UtcIso } from '../lib/time.js';
import type { Db } from './database.js';

/** What a rule decided. */
export type AuditDecision =
  | 'alert'
  | 'duplicate'
  | 'suppressed'
  | 'not-matched'
  | 'scheduled'
  | 'cancelled'
  | 'dropped'
  | 'firing'
  | 'resolved'
  | 'quiet'
  | 'muted'
  | 'escalated'
  | 'acknowledged';

/** One decision of one rule on one event, as `why` shows it. */
export interface AuditEntry {
  at: UtcIso;
  rule: string;
  /** `notice-new`, `notice-updated`, `capacity`, `deadline`, `escalation`. */
  event: string;
  /** `notice:123`, `capacity:transco:STATION 85`. */
  subject: string;
  notice_id: number | null;
  decision: AuditDecision;
  reason: string;
}

/** Writes and reads `audit`; its statements are prepared once, when the store opens. */
export class AuditStore {
  private readonly insert;
  private readonly selectForNotice;

  constructor(db: Db) {
    this.insert = db.prepare(
      `INSERT INTO audit (at, rule, event, subject, notice_id, decision, reason)
       VALUES (@at, @rule, @event, @subject, @notice_id, @decision, @reason)`,
    );
    this.selectForNotice = db.prepare<[number], AuditEntry>(
      'SELECT at, rule, event, subject, notice_id, decision, reason FROM audit WHERE notice_id = ? ORDER BY id',
    );
  }

  /** Writes one decision. */
  record(entry: AuditEntry): void {
    this.insert.run(entry);
  }

  /** Every entry about a notice, in order. */
  forNotice(noticeId: number): AuditEntry[] {
    return this.selectForNotice.all(noticeId);
  }
}
