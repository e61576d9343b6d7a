/**
 * The outbox's statements on PostgreSQL, as text, beside SQLite's (`../outbox-sql.ts`),
 * for `PgOutboxStore`. The writes only the leader may make are fenced (`fenced`): each
 * names its parameters after the fence's three.
 */
import { fencedBy } from './fence.js';

/** The columns of a delivery as the store reads it back: all but who claimed it. */
const COLUMNS = `id, subject, rule, target, target_json, payload, status, attempts, next_attempt_at,
  last_error, last_error_code, created_at, sent_at, claimed_at, detail, notice_id, notice_version`;

/**
 * A write only the leader makes, in one statement with its fence: the lease row is read
 * FOR SHARE first (`fencedBy`, parameters `$1`–`$3`), and the write, whose WHERE clause
 * `write` ends with, changes rows only when it held. Answers whether the fence held and
 * how many rows changed, so that a refused write is told from one that found no row.
 */
function fenced(write: string): string {
  return `WITH fence AS MATERIALIZED (SELECT ${fencedBy(1)} AS held),
    written AS (${write} AND (SELECT held FROM fence) RETURNING 1)
    SELECT (SELECT held FROM fence) AS held, (SELECT count(*) FROM written) AS changed`;
}

/** Columns a claim leaves when it ends (sent, retried, dead, released). */
const UNCLAIMED = 'claimed_at = NULL, claimed_by = NULL, claimed_term = NULL';

export const PG_OUTBOX_SQL = {
  insert: `INSERT INTO outbox (subject, rule, target, target_json, payload, next_attempt_at,
      created_at, notice_id, notice_version)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
    ON CONFLICT (subject, rule, target) DO NOTHING`,
  has: 'SELECT 1 FROM outbox WHERE subject = $1 AND rule = $2 AND target = $3 LIMIT 1',
  due: `SELECT ${COLUMNS} FROM outbox
    WHERE status = 'pending' AND claimed_at IS NULL AND next_attempt_at <= $1
    ORDER BY next_attempt_at, id LIMIT $2`,
  // Every target with deliveries waiting, in one pass over the pending rows.
  heads: `SELECT target, bool_or(claimed_at IS NOT NULL)::int AS busy,
      min(id) FILTER (WHERE next_attempt_at > $1) AS held, min(id) AS first,
      count(*) FILTER (WHERE claimed_at IS NULL) AS unclaimed
    FROM outbox WHERE status = 'pending' GROUP BY target`,
  // The due deliveries of the targets picked (`$2`), each before its first held one
  // (`$3`, null: none), at most `$4` of each: bounded here rather than after the read.
  dueOf: `SELECT ${COLUMNS} FROM (
      SELECT o.*, row_number() OVER (PARTITION BY o.target ORDER BY o.id) AS rank
      FROM outbox o JOIN unnest($2::text[], $3::bigint[]) AS p (target, held) ON o.target = p.target
      WHERE o.status = 'pending' AND o.claimed_at IS NULL AND o.next_attempt_at <= $1
        AND (p.held IS NULL OR o.id < p.held)) AS due
    WHERE rank <= $4 ORDER BY id`,
  nextReadyAt: `WITH heads AS (
      SELECT min(id) AS id, bool_or(claimed_at IS NOT NULL) AS busy
      FROM outbox WHERE status = 'pending' GROUP BY target)
    SELECT min(o.next_attempt_at) AS at FROM heads h JOIN outbox o ON o.id = h.id
    WHERE NOT h.busy`,
  backlog: `WITH targets AS (
      SELECT target, min(target_json) AS target_json, count(*) AS pending,
             count(*) FILTER (WHERE claimed_at IS NOT NULL) AS in_flight,
             min(created_at) AS oldest_at, min(id) FILTER (WHERE last_error IS NOT NULL) AS failed_id
      FROM outbox WHERE status = 'pending' GROUP BY target)
    SELECT t.target, t.target_json, t.pending, t.in_flight, t.oldest_at, e.last_error
    FROM targets t LEFT JOIN outbox e ON e.id = t.failed_id
    ORDER BY t.oldest_at, t.target`,
  // Rows another transaction is claiming are skipped, not waited for: it has them.
  claim: fenced(`UPDATE outbox SET claimed_at = $4, claimed_by = $2, claimed_term = $3
    WHERE id IN (SELECT id FROM outbox WHERE id = ANY ($5::bigint[]) AND status = 'pending'
      AND (SELECT held FROM fence) FOR UPDATE SKIP LOCKED)`),
  // This holder's claims but those of the targets in `$5`, and every claim of an earlier
  // term (or none: made by a SQLite store, copied); not another holder's of this term.
  releaseClaims:
    fenced(`UPDATE outbox SET ${UNCLAIMED}, next_attempt_at = least(next_attempt_at, $4)
    WHERE status = 'pending' AND claimed_at IS NOT NULL
      AND CASE WHEN claimed_by = $2 THEN target <> ALL ($5::text[])
               ELSE coalesce(claimed_term < $3, true) END`),
  markSent: fenced(`UPDATE outbox SET status = 'sent', sent_at = $4, detail = $5, ${UNCLAIMED},
      attempts = attempts + 1, last_error = NULL, last_error_code = NULL
    WHERE id = ANY ($6::bigint[])`),
  retryLater: fenced(`UPDATE outbox SET ${UNCLAIMED}, next_attempt_at = $4, last_error = $5,
      last_error_code = $6, attempts = attempts + $7
    WHERE id = ANY ($8::bigint[])`),
  markDead: fenced(`UPDATE outbox SET status = 'dead', ${UNCLAIMED}, last_error = $4,
      last_error_code = $5, attempts = attempts + 1
    WHERE id = ANY ($6::bigint[])`),
  oldestPending: `SELECT min(created_at) AS at FROM outbox WHERE status = 'pending'`,
  // The reason shown is the latest row's, as SQLite's bare column beside max() gives.
  deadReasons: `SELECT last_error_code AS code,
      (array_agg(coalesce(last_error, 'unknown') ORDER BY created_at DESC, id))[1] AS reason,
      count(DISTINCT last_error) AS reasons, count(*) AS count, max(created_at) AS last_at
    FROM outbox WHERE status = 'dead' GROUP BY last_error_code
    ORDER BY count DESC, code NULLS FIRST`,
  counts: 'SELECT status, count(*) AS n FROM outbox GROUP BY status',
  pending: "SELECT count(*) AS n FROM outbox WHERE status = 'pending'",
  forSubject: `SELECT ${COLUMNS} FROM outbox WHERE subject >= $1 AND subject < $2 ORDER BY id`,
} as const;
