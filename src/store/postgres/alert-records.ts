/**
 * The small records the alerts keep, on PostgreSQL: the audit trail (`../audit.ts`),
 * thread references (`../threads.ts`), outages (`../outages.ts`) and escalations
 * (`../escalations.ts`), each with the methods of its SQLite counterpart answering a
 * promise of what that one returns.
 */
import { z } from 'zod';
import type { UtcIso } from '../../lib/time.js';
import type { AuditEntry } from '../audit.js';
import type { EscalationRow, EscalationStatus } from '../escalations.js';
import type { Outage } from '../outages.js';
import { parseStored } from '../stored-json.js';
import type { StoredThreadRef } from '../threads.js';
import { type Connection, canBeId } from './queryable.js';

/** Writes and reads `audit` (see `AuditStore`). */
export class PgAuditStore {
  constructor(private readonly db: Connection) {}

  /** Writes one decision. */
  async record(entry: AuditEntry): Promise<void> {
    await this.db().query(
      `INSERT INTO audit (at, rule, event, subject, notice_id, decision, reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        entry.at,
        entry.rule,
        entry.event,
        entry.subject,
        entry.notice_id,
        entry.decision,
        entry.reason,
      ],
    );
  }

  /** Every entry about a notice, in order. */
  async forNotice(noticeId: number): Promise<AuditEntry[]> {
    if (!canBeId(noticeId)) return [];
    const { rows } = await this.db().query<AuditEntry>(
      'SELECT at, rule, event, subject, notice_id, decision, reason FROM audit WHERE notice_id = $1 ORDER BY id',
      [noticeId],
    );
    return rows;
  }
}

const threadRefSchema = z.record(z.string(), z.string());

/** Reads and writes `threads` (see `ThreadStore`). */
export class PgThreadStore {
  constructor(
    private readonly db: Connection,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {}

  /**
   * The reference kept for a subject at a target, if any; throws `StoredDataError` for
   * one that cannot be read back.
   */
  async get(target: string, subject: string): Promise<StoredThreadRef | undefined> {
    const { rows } = await this.db().query<{ ref: string }>(
      'SELECT ref FROM threads WHERE target = $1 AND subject = $2',
      [target, subject],
    );
    const row = rows[0];
    return row
      ? parseStored(threadRefSchema, row.ref, `the thread reference of ${subject} at ${target}`)
      : undefined;
  }

  /** Keeps the first reference: an update threads under the first message, always. */
  async set(target: string, subject: string, ref: StoredThreadRef): Promise<void> {
    await this.db().query(
      `INSERT INTO threads (target, subject, ref, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (target, subject) DO NOTHING`,
      [target, subject, JSON.stringify(ref), this.now()],
    );
  }
}

/** Reads and writes `outages` (see `OutageStore`). */
export class PgOutageStore {
  constructor(private readonly db: Connection) {}

  /** Records an outage; false when one of `subject` is already in progress (nothing written). */
  async begin(outage: Outage): Promise<boolean> {
    const result = await this.db().query(
      `INSERT INTO outages (subject, since, started_at, reason) VALUES ($1, $2, $3, $4)
       ON CONFLICT (subject) DO NOTHING`,
      [outage.subject, outage.since, outage.started_at, outage.reason],
    );
    return result.rowCount === 1;
  }

  /** Ends the outage of `subject` and returns it; undefined when none was in progress. */
  async end(subject: string): Promise<Outage | undefined> {
    const { rows } = await this.db().query<Outage>(
      'DELETE FROM outages WHERE subject = $1 RETURNING subject, since, started_at, reason',
      [subject],
    );
    return rows[0];
  }

  /** The outage of `subject` in progress, if any. */
  async get(subject: string): Promise<Outage | undefined> {
    const { rows } = await this.db().query<Outage>(
      'SELECT subject, since, started_at, reason FROM outages WHERE subject = $1',
      [subject],
    );
    return rows[0];
  }

  /** Every outage in progress, oldest first. */
  async all(): Promise<Outage[]> {
    const { rows } = await this.db().query<Outage>(
      'SELECT subject, since, started_at, reason FROM outages ORDER BY started_at, subject',
    );
    return rows;
  }
}

const ESCALATION_COLUMNS = 'rule, notice_id, alerted_at, status, decided_at';

/** Reads and writes `escalations` (see `EscalationStore`). */
export class PgEscalationStore {
  constructor(private readonly db: Connection) {}

  /** Plans the escalation of a notice by a rule, unless it is planned already; whether it was new. */
  async plan(rule: string, noticeId: number, alertedAt: UtcIso): Promise<boolean> {
    const result = await this.db().query(
      `INSERT INTO escalations (rule, notice_id, alerted_at, status)
       VALUES ($1, $2, $3, 'pending') ON CONFLICT (rule, notice_id) DO NOTHING`,
      [rule, noticeId, alertedAt],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Those still to decide or to watch, oldest first. */
  async open(): Promise<EscalationRow[]> {
    const { rows } = await this.db().query<EscalationRow>(
      `SELECT ${ESCALATION_COLUMNS} FROM escalations WHERE status IN ('pending', 'escalated')
       ORDER BY alerted_at, rule, notice_id`,
    );
    return rows;
  }

  /** Whether any is still to decide or to watch. */
  async anyOpen(): Promise<boolean> {
    const result = await this.db().query(
      "SELECT 1 FROM escalations WHERE status IN ('pending', 'escalated') LIMIT 1",
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Records what became of one. */
  async decide(
    rule: string,
    noticeId: number,
    status: EscalationStatus,
    at: UtcIso,
  ): Promise<void> {
    await this.db().query(
      'UPDATE escalations SET status = $1, decided_at = $2 WHERE rule = $3 AND notice_id = $4',
      [status, at, rule, noticeId],
    );
  }

  /** Every escalation of a notice, for `why`. */
  async forNotice(noticeId: number): Promise<EscalationRow[]> {
    if (!canBeId(noticeId)) return [];
    const { rows } = await this.db().query<EscalationRow>(
      `SELECT ${ESCALATION_COLUMNS} FROM escalations WHERE notice_id = $1 ORDER BY rule`,
      [noticeId],
    );
    return rows;
  }
}
