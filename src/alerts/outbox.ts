/**
 * The transactional outbox: one row per delivery, written in the same transaction as the
 * decision that caused it, keyed by the alert key so a decision can never be written
 * twice. Sending reads due rows from here; delivery is at-least-once.
 */

import type { Target } from '../rules/types.js';
import { targetKey } from '../rules/types.js';
import type { Db } from '../store/database.js';
import type { UtcIso } from '../upstream/schemas.js';
import type { AlertPayload } from './payload.js';

export type OutboxStatus = 'pending' | 'sent' | 'dead';

/** A delivery waiting or done. */
export interface OutboxRow {
  id: number;
  key: string;
  rule: string;
  target: Target;
  payload: AlertPayload;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: UtcIso;
  last_error: string | null;
  created_at: UtcIso;
  sent_at: UtcIso | null;
}

interface Row extends Omit<OutboxRow, 'target' | 'payload'> {
  target_json: string;
  payload: string;
}

function fromRow(r: Row): OutboxRow {
  const { target_json, payload, ...rest } = r;
  return {
    ...rest,
    target: JSON.parse(target_json) as Target,
    payload: JSON.parse(payload) as AlertPayload,
  };
}

/** Reads and writes `outbox`. */
export class OutboxStore {
  private readonly insert;

  constructor(private readonly db: Db) {
    this.insert = db.prepare(
      `INSERT INTO outbox (key, rule, target, target_json, payload, next_attempt_at, created_at)
       VALUES (@key, @rule, @target, @target_json, @payload, @at, @at)
       ON CONFLICT (key) DO NOTHING`,
    );
  }

  /** Queues a delivery; false when that alert key was decided before (nothing is written). */
  enqueue(key: string, rule: string, target: Target, payload: AlertPayload, at: UtcIso): boolean {
    const result = this.insert.run({
      key,
      rule,
      target: targetKey(target),
      target_json: JSON.stringify(target),
      payload: JSON.stringify(payload),
      at,
    });
    return result.changes === 1;
  }

  /** Pending deliveries due at `now`, oldest first. */
  due(now: UtcIso, limit = 100): OutboxRow[] {
    return this.db
      .prepare<[string, number], Row>(
        `SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`,
      )
      .all(now, limit)
      .map(fromRow);
  }

  markSent(id: number, at: UtcIso): void {
    this.db
      .prepare(
        `UPDATE outbox SET status = 'sent', sent_at = ?, attempts = attempts + 1 WHERE id = ?`,
      )
      .run(at, id);
  }

  /** Records a failed attempt; `retryAt` null makes the delivery dead. */
  markFailed(id: number, error: string, retryAt: UtcIso | null): void {
    this.db
      .prepare(
        `UPDATE outbox SET attempts = attempts + 1, last_error = @error,
           status = CASE WHEN @retryAt IS NULL THEN 'dead' ELSE status END,
           next_attempt_at = coalesce(@retryAt, next_attempt_at)
         WHERE id = @id`,
      )
      .run({ id, error, retryAt });
  }

  /** Deliveries by status. */
  counts(): Record<OutboxStatus, number> {
    const rows = this.db
      .prepare<[], { status: OutboxStatus; n: number }>(
        'SELECT status, count(*) AS n FROM outbox GROUP BY status',
      )
      .all();
    return {
      pending: 0,
      sent: 0,
      dead: 0,
      ...Object.fromEntries(rows.map((r) => [r.status, r.n])),
    };
  }

  /** Every delivery whose key concerns a notice, for `why`. */
  forSubject(subjectPrefix: string): OutboxRow[] {
    return this.db
      .prepare<[string], Row>(`SELECT * FROM outbox WHERE key LIKE ? ESCAPE '\\' ORDER BY id`)
      .all(`%|${subjectPrefix.replace(/[%_\\]/g, '\\$&')}%`)
      .map(fromRow);
  }
}
