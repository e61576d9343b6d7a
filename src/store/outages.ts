/**
 * Outages: a feed that has not succeeded for too long, a delivery target whose alerts
 * go dead. One row per outage while it lasts, so that each is told once when it begins
 * and once when it ends, whatever restarts happen in between.
 */
import type { UtcIso } from '../lib/time.js';
import { type Db, statement } from './database.js';

/** One outage in progress. */
export interface Outage {
  /** `feed:notices`, `target:slack:#ops`. */
  subject: string;
  /** The last success before it; null: none was known. */
  since: UtcIso | null;
  /** When pipewatch found it. */
  started_at: UtcIso;
  /** Why, as it was found. */
  reason: string;
}

/** Reads and writes `outages`. */
export class OutageStore {
  constructor(private readonly db: Db) {}

  /** Records an outage; false when one of `subject` is already in progress (nothing written). */
  begin(outage: Outage): boolean {
    return (
      statement(
        this.db,
        `INSERT INTO outages (subject, since, started_at, reason) VALUES (@subject, @since, @started_at, @reason)
           ON CONFLICT (subject) DO NOTHING`,
      ).run(outage).changes === 1
    );
  }

  /** Ends the outage of `subject` and returns it; undefined when none was in progress. */
  end(subject: string): Outage | undefined {
    return statement<[string], Outage>(
      this.db,
      'DELETE FROM outages WHERE subject = ? RETURNING subject, since, started_at, reason',
    ).get(subject);
  }

  /** The outage of `subject` in progress, if any. */
  get(subject: string): Outage | undefined {
    return statement<[string], Outage>(
      this.db,
      'SELECT subject, since, started_at, reason FROM outages WHERE subject = ?',
    ).get(subject);
  }

  /** Every outage in progress, oldest first. */
  all(): Outage[] {
    return statement<[], Outage>(
      this.db,
      'SELECT subject, since, started_at, reason FROM outages ORDER BY started_at, subject',
    ).all();
  }
}
