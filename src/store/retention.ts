/**
 * What `PIPEWATCH_RETENTION` removes, and the incremental vacuum that gives the space
 * back. Every table that grows with time or with use of chat is pruned here or bounded by
 * design (docs/operations.md, Storage); everything a pending delivery or a reminder still to be sent
 * needs stays until it is done, and so does a notice an escalation still waits on.
 *
 * A notice not seen for the retention is removed but for a tombstone (its id, content
 * hash and version, some 30 bytes), so that the notice seen again is recognised and
 * nothing alerts twice: seen again as it was, it is stored again and is not new; changed,
 * it is an update to the next version. Notices go by when pipewatch last saw them, not
 * when they were posted: one the API still lists (a long outage notice) stays whole. One
 * a pending delivery, a reminder still to be sent or a Remind me names keeps its row; of
 * those the text goes (and comes back when the notice is seen again unchanged).
 */
import type { UtcIso } from '../lib/time.js';
import { type Db, statement } from './database.js';

/** How many rows one prune touched, by table. */
export interface PruneCounts {
  subscriptions: number;
  reminders: number;
  notices: number;
  notice_texts: number;
  notice_history: number;
  outbox: number;
  audit: number;
  capacity_cycles: number;
  capacity_state: number;
  held: number;
  silences: number;
  acks: number;
  threads: number;
  escalations: number;
}

/**
 * The statements below are plain SQL both databases run as written, their parameters
 * named (`@cutoff`, `@now`), but for the few marked SQLite's own; the PostgreSQL store
 * (`postgres/retention.ts`) runs the shared ones and its own forms of the rest.
 */

/** The notices a pending delivery names (it reads their version, text and all). */
export const PENDING_NOTICES = `SELECT notice_id FROM outbox WHERE status = 'pending' AND notice_id IS NOT NULL`;

/**
 * The notices something still to come names: a pending delivery (which reads its
 * version), a reminder still to be sent, a Remind me (which finds its notice by id).
 */
export const NEEDED_NOTICES = `${PENDING_NOTICES}
  UNION SELECT notice_id FROM reminders WHERE status = 'scheduled'
  UNION SELECT notice_id FROM escalations WHERE status IN ('pending', 'escalated')
  UNION SELECT notice_id FROM subscriptions WHERE notice_id IS NOT NULL`;

/**
 * A notice's row goes, its tombstone stays: the content hash (hex in `notices`) kept as
 * its 16 bytes. Its history goes with it (ON DELETE CASCADE). SQLite's own: temporary
 * tables, `INSERT OR REPLACE`, `unhex`.
 */
const PRUNE_ROWS = [
  `CREATE TEMP TABLE gone_notices AS SELECT id FROM notices
    WHERE last_seen_at < @cutoff AND id NOT IN (${NEEDED_NOTICES})`,
  `INSERT OR REPLACE INTO notice_tombstones (id, content_hash, version)
    SELECT id, coalesce(unhex(content_hash), CAST(content_hash AS BLOB)), version FROM notices
    WHERE id IN (SELECT id FROM temp.gone_notices)`,
  'DELETE FROM notices WHERE id IN (SELECT id FROM temp.gone_notices)',
] as const;

/**
 * A notice's text is pruned by taking its row out and putting it back without the text,
 * not by an update in place: rows shrunk in place would leave their pages nearly empty
 * but still in use, where rows put back together fill fewer pages and the rest go to
 * the free list, for the vacuum. Its history is older than the cutoff too, and goes with
 * it (ON DELETE CASCADE) as the history's own prune would take it.
 */
export const KEPT = `id, pipeline_id, pipeline_name, pipeline_slug, pipeline_url, subject, identifier, url,
  category, type, status, posted_at, effective_at, end_at, response_at, service_created_at,
  service_updated_at, content_hash, version, first_seen_at, last_seen_at, last_changed_at, baseline`;

/** SQLite's own: temporary tables. */
const PRUNE_TEXTS = [
  `CREATE TEMP TABLE pruned_notices AS SELECT ${KEPT} FROM notices
    WHERE last_seen_at < @cutoff AND pruned_at IS NULL AND id NOT IN (${PENDING_NOTICES})`,
  'DELETE FROM notices WHERE id IN (SELECT id FROM temp.pruned_notices)',
  `INSERT INTO notices (${KEPT}, notice, html, mobile, body, pruned_at)
    SELECT ${KEPT}, '', '', '', NULL, @now FROM temp.pruned_notices ORDER BY id`,
] as const;

/**
 * What goes before the notices: a Remind me whose notice's deadline passed before the
 * cutoff (or which it no longer has) has nothing left to remind of; its reminders go with
 * it (the `subscriptions_forget` trigger). Reminders whose deadline passed before the
 * cutoff are done (none is sent after its deadline); those of a subscription removed by
 * another process while the daemon was planning them have no rule left. An escalation
 * decided before the cutoff needs its notice no more. A subscription's reminders are
 * those of its rule's name, `sub-` and its id (`rules/subscription.ts`), which no rule
 * file may take.
 */
export const BEFORE_NOTICES: Record<'subscriptions' | 'reminders' | 'escalations', string> = {
  subscriptions: `DELETE FROM subscriptions WHERE notice_id IS NOT NULL AND created_at < @cutoff
    AND NOT EXISTS (SELECT 1 FROM notices n
      WHERE n.id = subscriptions.notice_id AND n.response_at >= @cutoff)`,
  reminders: `DELETE FROM reminders WHERE (status <> 'scheduled' AND deadline_at < @cutoff)
    OR (substr(rule, 1, 4) = 'sub-' AND length(rule) > 4 AND ltrim(substr(rule, 5), '0123456789') = ''
      AND rule NOT IN (SELECT 'sub-' || id FROM subscriptions))`,
  // One still pending waits for its time; an escalated one older than the retention is
  // no longer watched for an acknowledgement, whose record is gone by then too.
  escalations: `DELETE FROM escalations WHERE status <> 'pending'
    AND coalesce(decided_at, alerted_at) < @cutoff`,
};

/** What goes after the notices, in this order: a parent after its children. */
export const PRUNE: Record<
  Exclude<keyof PruneCounts, 'notices' | 'notice_texts' | keyof typeof BEFORE_NOTICES>,
  string
> = {
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
  // A location not reported since the cutoff: its rule starts afresh if it comes back.
  capacity_state: 'DELETE FROM capacity_state WHERE last_cycle < @cutoff',
  // After `held`: a silence that ended before the cutoff, summed up, holding nothing.
  silences: `DELETE FROM silences WHERE summarized_at IS NOT NULL
    AND coalesce(lifted_at, ends_at) < @cutoff AND id NOT IN (SELECT silence_id FROM held)`,
  // A click on a message older than the retention is a first acknowledgement again.
  acks: 'DELETE FROM acks WHERE at < @cutoff',
  // An update of a notice first posted before the cutoff starts a thread of its own.
  threads: 'DELETE FROM threads WHERE created_at < @cutoff',
};

/** Prunes what is older than the retention and vacuums the space it held. */
export class RetentionStore {
  constructor(private readonly db: Db) {}

  /** Removes what is older than `cutoff`, in one transaction; `now` dates the pruning. */
  prune(cutoff: UtcIso, now: UtcIso): PruneCounts {
    return this.db.transaction(() => {
      const counts = {} as PruneCounts;
      for (const [table, sql] of Object.entries(BEFORE_NOTICES) as [
        keyof typeof BEFORE_NOTICES,
        string,
      ][]) {
        counts[table] = statement(this.db, sql).run({ cutoff }).changes;
      }
      const [gone, bury, removeRows] = PRUNE_ROWS;
      this.db.prepare(gone).run({ cutoff });
      this.db.prepare(bury).run();
      counts.notices = this.db.prepare(removeRows).run().changes;
      this.db.exec('DROP TABLE temp.gone_notices');
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
    const before = Number(this.db.pragma('page_count', { simple: true }));
    this.db.pragma('incremental_vacuum');
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return before - Number(this.db.pragma('page_count', { simple: true }));
  }
}
