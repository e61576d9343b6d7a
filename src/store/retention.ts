/**
 * What `PIPEWATCH_RETENTION` removes, and the incremental vacuum that gives the space
 * back. A notice is never deleted: its text goes and its row stays (id, pipeline,
 * subject, dates, content hash, version), so a notice seen again is recognised and
 * nothing alerts twice. Notices go by when pipewatch last saw them, not when they were
 * posted: one the API still lists (a long outage notice) keeps its text. Everything a
 * pending delivery needs stays until it is delivered.
 */
import type { UtcIso } from '../lib/time.js';
import { type Db, statement } from './database.js';

/** How many rows one prune touched, by table. */
export interface PruneCounts {
  notice_texts: number;
  notice_history: number;
  outbox: number;
  audit: number;
  capacity_cycles: number;
  held: number;
}

const PENDING_NOTICES = `SELECT notice_id FROM outbox WHERE status = 'pending' AND notice_id IS NOT NULL`;

/**
 * A notice's text is pruned by taking its row out and putting it back without the text,
 * not by an update in place: rows shrunk in place would leave their pages nearly empty
 * but still in use, where rows put back together fill fewer pages and the rest go to
 * the free list, for the vacuum. Its history is older than the cutoff too, and goes with
 * it (ON DELETE CASCADE) as the history's own prune would take it.
 */
const KEPT = `id, pipeline_id, pipeline_name, pipeline_slug, pipeline_url, subject, identifier, url,
  category, type, status, posted_at, effective_at, end_at, response_at, service_created_at,
  service_updated_at, content_hash, version, first_seen_at, last_seen_at, last_changed_at, baseline`;

const PRUNE_TEXTS = [
  `CREATE TEMP TABLE pruned_notices AS SELECT ${KEPT} FROM notices
    WHERE last_seen_at < @cutoff AND pruned_at IS NULL AND id NOT IN (${PENDING_NOTICES})`,
  'DELETE FROM notices WHERE id IN (SELECT id FROM temp.pruned_notices)',
  `INSERT INTO notices (${KEPT}, notice, html, mobile, body, pruned_at)
    SELECT ${KEPT}, '', '', '', NULL, @now FROM temp.pruned_notices ORDER BY id`,
] as const;

const PRUNE: Record<Exclude<keyof PruneCounts, 'notice_texts'>, string> = {
  notice_history: `DELETE FROM notice_history
    WHERE changed_at < @cutoff AND notice_id NOT IN (${PENDING_NOTICES})`,
  outbox: `DELETE FROM outbox WHERE status IN ('sent', 'dead') AND created_at < @cutoff`,
  audit: 'DELETE FROM audit WHERE at < @cutoff',
  // Their locations go with them (ON DELETE CASCADE).
  capacity_cycles: 'DELETE FROM capacity_cycles WHERE last_seen_at < @cutoff',
  // A silence that never ends (an unsubscribe) holds alerts for ever; one that ended
  // long ago has said what it held.
  held: `DELETE FROM held WHERE at < @cutoff AND silence_id IN (
      SELECT id FROM silences WHERE (ends_at IS NULL AND lifted_at IS NULL)
        OR coalesce(lifted_at, ends_at) < @cutoff)`,
};

/** Prunes what is older than the retention and vacuums the space it held. */
export class RetentionStore {
  constructor(private readonly db: Db) {}

  /** Removes what is older than `cutoff`, in one transaction; `now` dates the pruning. */
  prune(cutoff: UtcIso, now: UtcIso): PruneCounts {
    return this.db.transaction(() => {
      const counts = {} as PruneCounts;
      const [select, remove, putBack] = PRUNE_TEXTS;
      this.db.prepare(select).run({ cutoff, now });
      this.db.prepare(remove).run();
      counts.notice_texts = this.db.prepare(putBack).run({ now }).changes;
      this.db.exec('DROP TABLE temp.pruned_notices');
      for (const [table, sql] of Object.entries(PRUNE) as [keyof typeof PRUNE, string][]) {
        counts[table] = statement(this.db, sql).run({ cutoff, now }).changes;
      }
      return counts;
    })();
  }

  /**
   * Gives the pages freed by a prune back to the file system: an incremental vacuum,
   * then a checkpoint that truncates the WAL. Outside any transaction. Returns how many
   * pages the file lost.
   */
  vacuum(): number {
    const before = this.db.pragma('page_count', { simple: true }) as number;
    this.db.pragma('incremental_vacuum');
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return before - (this.db.pragma('page_count', { simple: true }) as number);
  }
}
