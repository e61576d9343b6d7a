/**
 * What `PIPEWATCH_RETENTION` removes, on PostgreSQL, with the methods of `RetentionStore`
 * (`../retention.ts`), each answering a promise of what the SQLite one returns: the same
 * rows go, in the same order, counted alike.
 *
 * The statements are SQLite's, shared (`BEFORE_NOTICES`, `PRUNE`), but for the two that
 * prune notices, which SQLite writes with temporary tables, `INSERT OR REPLACE` and
 * `unhex`: here each is one statement whose common table expressions pass the deleted
 * rows on (see `NOTICE_ROWS`, `NOTICE_TEXTS`).
 *
 * A prune is one transaction, as on SQLite, yet a repository holds no client to BEGIN
 * on: it sends its statements as one multi-statement query (the simple protocol), which
 * PostgreSQL runs as one transaction, or as part of the caller's when it runs inside one.
 * That protocol takes no parameters, so the two values, instants the caller computed,
 * are written into the text as quoted literals (`pg.escapeLiteral`), in place of the
 * shared statements' `@cutoff` and `@now`.
 */
import pg from 'pg';
import type { UtcIso } from '../../lib/time.js';
import { DatabaseError } from '../database.js';
import {
  BEFORE_NOTICES,
  KEPT,
  NEEDED_NOTICES,
  PENDING_NOTICES,
  PRUNE,
  type PruneCounts,
} from '../retention.js';
import type { Connection } from './queryable.js';

/**
 * A notice's row goes, its tombstone stays (see `../retention.ts`), in one statement: the
 * deleted rows' ids, hashes and versions are buried as they go. A hash that is not hex
 * (SQLite's `unhex` gives NULL) is kept as its text's bytes, as SQLite keeps it.
 */
const NOTICE_ROWS = `WITH gone AS (
    DELETE FROM notices WHERE last_seen_at < @cutoff AND id NOT IN (${NEEDED_NOTICES})
    RETURNING id, content_hash, version
  ), buried AS (
    INSERT INTO notice_tombstones (id, content_hash, version)
    SELECT id, CASE WHEN content_hash ~ '^([0-9a-fA-F]{2})*$' THEN decode(content_hash, 'hex')
      ELSE convert_to(content_hash, 'UTF8') END, version FROM gone
    ON CONFLICT (id) DO UPDATE SET content_hash = excluded.content_hash, version = excluded.version
  )
  SELECT count(*) AS n FROM gone`;

/**
 * A notice's text is pruned by taking its row out and putting it back without the text,
 * as on SQLite, so that its history goes with it (ON DELETE CASCADE) and is counted
 * nowhere, as there. (On PostgreSQL an update in place would write a new row all the
 * same.)
 */
const NOTICE_TEXTS = `WITH pruned AS (
    DELETE FROM notices
    WHERE last_seen_at < @cutoff AND pruned_at IS NULL AND id NOT IN (${PENDING_NOTICES})
    RETURNING ${KEPT}
  )
  INSERT INTO notices (${KEPT}, notice, html, mobile, body, pruned_at)
  SELECT ${KEPT}, '', '', '', NULL, @now FROM pruned`;

/** A prune's statements in order, each with what it counts. */
const STEPS: ReadonlyArray<readonly [keyof PruneCounts, string]> = [
  ...(Object.entries(BEFORE_NOTICES) as [keyof typeof BEFORE_NOTICES, string][]),
  ['notices', NOTICE_ROWS],
  ['notice_texts', NOTICE_TEXTS],
  ...(Object.entries(PRUNE) as [keyof typeof PRUNE, string][]),
];

/**
 * The tables a prune deletes from (the locations and the history by cascade) or rewrites
 * (the tombstones): what a vacuum looks at.
 */
export const PRUNED_TABLES = [
  'subscriptions',
  'reminders',
  'escalations',
  'notices',
  'notice_history',
  'notice_tombstones',
  'outbox',
  'audit',
  'capacity_cycles',
  'capacity_locations',
  'held',
  'capacity_state',
  'silences',
  'acks',
  'threads',
] as const;

/** `sql` with each `@name` written as the quoted literal of `values[name]`. */
function withLiterals(sql: string, values: Record<string, string>): string {
  return sql.replace(/@(\w+)/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new DatabaseError(`the retention statement needs @${name}`);
    return pg.escapeLiteral(value);
  });
}

/** Prunes what is older than the retention, and vacuums the tables it pruned. */
export class PgRetentionStore {
  constructor(private readonly db: Connection) {}

  /**
   * Removes what is older than `cutoff`, in one transaction (the caller's, when it runs
   * inside one); `now` dates the pruning. One round trip.
   */
  async prune(cutoff: UtcIso, now: UtcIso): Promise<PruneCounts> {
    const script = STEPS.map(([, sql]) => withLiterals(sql, { cutoff, now })).join(';\n');
    // A multi-statement query answers with one result a statement.
    const answer: unknown = await this.db().query(script);
    const results = answer as pg.QueryResult<{ n?: number }>[];
    if (!Array.isArray(answer) || results.length !== STEPS.length) {
      throw new DatabaseError(
        `the prune's ${STEPS.length} statements gave ${Array.isArray(answer) ? answer.length : 1} results`,
      );
    }
    const counts = {} as PruneCounts;
    STEPS.forEach(([table], i) => {
      const result = results[i];
      counts[table] = (table === 'notices' ? result?.rows[0]?.n : result?.rowCount) ?? 0;
    });
    return counts;
  }

  /**
   * `VACUUM (ANALYZE)` of the pruned tables; returns how many pages (of the server's
   * block size) their rows and TOAST gave back to the file system: not their indexes,
   * which a plain VACUUM does not shrink, nor the free-space and visibility maps it keeps
   * beside each table (a few pages, made at the first vacuum). Outside any
   * transaction, as on SQLite: PostgreSQL refuses VACUUM inside a transaction block, so
   * it fails loudly there.
   *
   * Why: PostgreSQL reuses the space of deleted rows only once they are vacuumed, and
   * plans with statistics gathered before the prune. Autovacuum gets to both in time, but
   * by the share of a table changed (20%), which a day's prune of a table of months seldom
   * reaches, and a first prune (of a database copied from SQLite, of a retention
   * shortened) may remove most of it. A plain VACUUM does it now without holding off
   * reads or writes; it gives back to the file system only the pages emptied at a
   * table's end, where SQLite's incremental vacuum gives back every free page. VACUUM
   * FULL would give back all, but locks each table against every replica's reads while
   * it rewrites it: not done.
   */
  async vacuum(): Promise<number> {
    const pages = async () => {
      const { rows } = await this.db().query<{ pages: number }>(
        `SELECT sum(pg_relation_size(c.oid) + coalesce(pg_relation_size(nullif(c.reltoastrelid, 0)), 0))::bigint
           / current_setting('block_size')::bigint AS pages
         FROM unnest($1::text[]) AS t JOIN pg_class c ON c.oid = to_regclass(t)`,
        [PRUNED_TABLES],
      );
      return rows[0]?.pages ?? 0;
    };
    const before = await pages();
    await this.db().query(`VACUUM (ANALYZE) ${PRUNED_TABLES.join(', ')}`);
    return before - (await pages());
  }
}
