/**
 * The outbox's statements, as text: `OutboxStore` prepares each once, when the store
 * opens. Kept apart so the queries can be read, and reviewed against the schema in
 * `migrations.ts`, in one place.
 */
export const OUTBOX_SQL = {
  // Bound by position: by name, better-sqlite3 looks each parameter up, once an alert.
  insert: `INSERT INTO outbox (subject, rule, target, target_json, payload, next_attempt_at,
      created_at, notice_id, notice_version)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (subject, rule, target) DO NOTHING`,
  has: 'SELECT 1 FROM outbox WHERE subject = ? AND rule = ? AND target = ?',
  due: `SELECT * FROM outbox
    WHERE status = 'pending' AND claimed_at IS NULL AND next_attempt_at <= ?
    ORDER BY next_attempt_at, id LIMIT ?`,
  // Every target with deliveries waiting, in one pass over the pending rows.
  heads: `SELECT target, max(claimed_at IS NOT NULL) AS busy,
      min(CASE WHEN next_attempt_at > ? THEN id END) AS held, min(id) AS first,
      sum(claimed_at IS NULL) AS unclaimed
    FROM outbox WHERE status = 'pending' GROUP BY target`,
  // Through the index by status; the targets become an index of their own (IN).
  dueOf: `SELECT * FROM outbox
    WHERE status = 'pending' AND claimed_at IS NULL AND next_attempt_at <= ?
      AND target IN (SELECT value FROM json_each(?))
    ORDER BY id`,
  nextReadyAt: `WITH heads AS (
      SELECT min(id) AS id, max(claimed_at IS NOT NULL) AS busy
      FROM outbox WHERE status = 'pending' GROUP BY target)
    SELECT min(o.next_attempt_at) AS at FROM heads h JOIN outbox o ON o.id = h.id
    WHERE h.busy = 0`,
  backlog: `WITH targets AS (
      SELECT target, target_json, count(*) AS pending, sum(claimed_at IS NOT NULL) AS in_flight,
             min(created_at) AS oldest_at,
             min(CASE WHEN last_error IS NOT NULL THEN id END) AS failed_id
      FROM outbox WHERE status = 'pending' GROUP BY target)
    SELECT t.target, t.target_json, t.pending, t.in_flight, t.oldest_at, e.last_error
    FROM targets t LEFT JOIN outbox e ON e.id = t.failed_id
    ORDER BY t.oldest_at`,
  claim: `UPDATE outbox SET claimed_at = @at WHERE id = @id AND status = 'pending'`,
  // claimed_by and claimed_term stay NULL here (one process per SQLite file), and are
  // cleared with claimed_at all the same: a store copied to PostgreSQL keeps no stale owner.
  releaseClaims: `UPDATE outbox SET claimed_at = NULL, claimed_by = NULL, claimed_term = NULL,
      next_attempt_at = min(next_attempt_at, ?)
    WHERE status = 'pending' AND claimed_at IS NOT NULL
      AND target NOT IN (SELECT value FROM json_each(?))`,
  markSent: `UPDATE outbox SET status = 'sent', sent_at = @at, detail = @detail, claimed_at = NULL,
      claimed_by = NULL, claimed_term = NULL, attempts = attempts + 1, last_error = NULL, last_error_code = NULL
    WHERE id = @id`,
  retryLater: `UPDATE outbox SET claimed_at = NULL, claimed_by = NULL, claimed_term = NULL,
      next_attempt_at = @retryAt, last_error = @error,
      last_error_code = @code, attempts = attempts + @n
    WHERE id = @id`,
  markDead: `UPDATE outbox SET status = 'dead', claimed_at = NULL, claimed_by = NULL,
      claimed_term = NULL, last_error = @error,
      last_error_code = @code, attempts = attempts + 1
    WHERE id = @id`,
  oldestPending: `SELECT min(created_at) AS at FROM outbox WHERE status = 'pending'`,
  // The reason shown is the latest row's: SQLite takes bare columns from the max() row.
  // One row per error code, a closed set of about fifteen: every kind is named.
  deadReasons: `SELECT last_error_code AS code, coalesce(last_error, 'unknown') AS reason,
      count(DISTINCT last_error) AS reasons, count(*) AS count, max(created_at) AS last_at
    FROM outbox WHERE status = 'dead' GROUP BY last_error_code
    ORDER BY count DESC, code`,
  counts: 'SELECT status, count(*) AS n FROM outbox GROUP BY status',
  pending: "SELECT count(*) AS n FROM outbox WHERE status = 'pending'",
  forSubject: 'SELECT * FROM outbox WHERE subject >= ? AND subject < ? ORDER BY id',
} as const;
