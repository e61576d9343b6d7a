/**
 * Silences and the alerts they held back, on PostgreSQL, with the methods of
 * `SilenceStore` (`../silences.ts`), each answering a promise of what the SQLite one
 * returns. Matchers are JSON text, as on SQLite; the one query that looks inside them
 * (`activeOn`) reads them as `jsonb`. The revision counter is bumped by the schema's row
 * triggers, as on SQLite.
 */
import type { UtcIso } from '../../lib/time.js';
import { expectRow } from '../database.js';
import {
  HELD_COLUMNS,
  type HeldRow,
  type HeldTableRow,
  heldOfRow,
  type NewSilence,
  SILENCE_COLUMNS,
  type SilenceRow,
  type SilenceTableRow,
  silenceEnd,
  silenceOfRow,
} from '../silences.js';
import { type Connection, canBeId } from './queryable.js';

/** The silences a statement selects (`SILENCE_COLUMNS`), read back. */
async function silenceRows(db: Connection, sql: string, values: unknown[]): Promise<SilenceRow[]> {
  return (await db().query<SilenceTableRow>(sql, values)).rows.map(silenceOfRow);
}

/** Reads and writes `silences` and `held` (see `SilenceStore`). */
export class PgSilenceStore {
  constructor(private readonly db: Connection) {}

  /** Stores a silence; returns its id. */
  async add(s: NewSilence): Promise<number> {
    const { rows } = await this.db().query<{ id: number }>(
      `INSERT INTO silences (matchers_json, starts_at, ends_at, created_by, comment, created_at, workspace)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [
        JSON.stringify(s.matchers),
        s.starts_at,
        s.ends_at,
        s.created_by,
        s.comment,
        s.created_at,
        s.workspace ?? null,
      ],
    );
    return expectRow(rows[0], 'id of the new silence').id;
  }

  async get(id: number): Promise<SilenceRow | undefined> {
    if (!canBeId(id)) return undefined;
    const { rows } = await this.db().query<SilenceTableRow>(
      `SELECT ${SILENCE_COLUMNS} FROM silences WHERE id = $1`,
      [id],
    );
    return rows[0] && silenceOfRow(rows[0]);
  }

  /** The silences in force at `now`. */
  async active(now: UtcIso): Promise<SilenceRow[]> {
    return silenceRows(
      this.db,
      `SELECT ${SILENCE_COLUMNS} FROM silences
       WHERE starts_at <= $1 AND (ends_at IS NULL OR ends_at > $1) AND lifted_at IS NULL
       ORDER BY id`,
      [now],
    );
  }

  /**
   * The silences in force at `now` on one of `targets` (target keys), or made by `by`
   * (see `SilenceStore.activeOn`). Matchers damaged into JSON that is not a list, or not
   * JSON, fail the query, as they do SQLite's (with the database's own words).
   */
  async activeOn(now: UtcIso, targets: readonly string[], by?: string): Promise<SilenceRow[]> {
    return silenceRows(
      this.db,
      `SELECT ${SILENCE_COLUMNS} FROM silences
       WHERE starts_at <= $1 AND (ends_at IS NULL OR ends_at > $1) AND lifted_at IS NULL
         AND (created_by = $2 OR EXISTS (
           SELECT 1 FROM jsonb_array_elements(matchers_json::jsonb) m
           WHERE m ->> 'key' = 'target' AND m ->> 'op' = '=' AND m ->> 'value' = ANY ($3::text[])))
       ORDER BY id`,
      [now, by ?? null, [...targets]],
    );
  }

  /** The silences not ended at `now`, oldest first: those in force and those yet to start. */
  async notEnded(now: UtcIso): Promise<SilenceRow[]> {
    return silenceRows(
      this.db,
      `SELECT ${SILENCE_COLUMNS} FROM silences
       WHERE (ends_at IS NULL OR ends_at > $1) AND lifted_at IS NULL
       ORDER BY id`,
      [now],
    );
  }

  /** A number that changes with every change to any silence, by any process or replica. */
  async revision(): Promise<number> {
    const { rows } = await this.db().query<{ n: number }>(
      "SELECT n FROM revisions WHERE name = 'silences'",
    );
    return expectRow(rows[0], 'revision counter of silences').n;
  }

  /** Every silence not ended before `since`, newest first; all of them when `since` is undefined. */
  async list(since?: UtcIso): Promise<SilenceRow[]> {
    const rows = await silenceRows(
      this.db,
      `SELECT ${SILENCE_COLUMNS} FROM silences ORDER BY id DESC`,
      [],
    );
    if (since === undefined) return rows;
    return rows.filter((s) => {
      const end = silenceEnd(s);
      return end === null || end >= since;
    });
  }

  /** Ends a silence now; returns false when there is none in force by that id. */
  async lift(id: number, by: string, now: UtcIso): Promise<boolean> {
    if (!canBeId(id)) return false;
    const result = await this.db().query(
      `UPDATE silences SET lifted_at = $1, lifted_by = $2
       WHERE id = $3 AND lifted_at IS NULL AND (ends_at IS NULL OR ends_at > $1)`,
      [now, by, id],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /**
   * Moves the end of a silence not ended at `now` (nor lifted, nor endless) to `endsAt`;
   * false when there is none such by that id.
   */
  async setEnd(id: number, endsAt: UtcIso, now: UtcIso): Promise<boolean> {
    if (!canBeId(id)) return false;
    const result = await this.db().query(
      `UPDATE silences SET ends_at = $1
       WHERE id = $2 AND lifted_at IS NULL AND ends_at IS NOT NULL AND ends_at > $3`,
      [endsAt, id, now],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Silences that have ended by `now` and whose summary is not decided yet. */
  async endedUnsummarized(now: UtcIso): Promise<SilenceRow[]> {
    return silenceRows(
      this.db,
      `SELECT ${SILENCE_COLUMNS} FROM silences
       WHERE summarized_at IS NULL AND (lifted_at IS NOT NULL OR (ends_at IS NOT NULL AND ends_at <= $1))
       ORDER BY id`,
      [now],
    );
  }

  async markSummarized(id: number, now: UtcIso): Promise<void> {
    if (!canBeId(id)) return;
    await this.db().query('UPDATE silences SET summarized_at = $1 WHERE id = $2', [now, id]);
  }

  /**
   * Keeps one held-back alert under its alert key; false when that key was held before
   * (the alert was decided already).
   */
  async hold(key: string, row: HeldRow & { targetKey: string }): Promise<boolean> {
    const result = await this.db().query(
      `INSERT INTO held (key, silence_id, rule, target, target_json, alert_json, at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (key) DO NOTHING`,
      [
        key,
        row.silence_id,
        row.rule,
        row.targetKey,
        JSON.stringify(row.target),
        JSON.stringify(row.alert),
        row.at,
      ],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /**
   * How many silences made by one person (`slack:U0ALICE`) or in one chat workspace
   * (`slack:T0GAS`) are in force at `now` or still to come.
   */
  async countInForce(
    of: { createdBy: string } | { workspace: string },
    now: UtcIso,
  ): Promise<number> {
    const [column, value] =
      'createdBy' in of ? ['created_by', of.createdBy] : ['workspace', of.workspace];
    const { rows } = await this.db().query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM silences
       WHERE ${column} = $1 AND lifted_at IS NULL AND (ends_at IS NULL OR ends_at > $2)`,
      [value, now],
    );
    return rows[0]?.n ?? 0;
  }

  /** Whether any alert was ever held back (and not pruned). */
  async anyHeld(): Promise<boolean> {
    return ((await this.db().query('SELECT 1 FROM held LIMIT 1')).rowCount ?? 0) > 0;
  }

  /** Whether an alert key was held back. */
  async isHeld(key: string): Promise<boolean> {
    return ((await this.db().query('SELECT 1 FROM held WHERE key = $1', [key])).rowCount ?? 0) > 0;
  }

  /**
   * What a silence held back, newest first. Throws `StoredDataError` for one whose target
   * cannot be read back; its alert is the layer above's to read.
   */
  async heldBy(silenceId: number): Promise<HeldRow[]> {
    if (!canBeId(silenceId)) return [];
    const { rows } = await this.db().query<HeldTableRow>(
      `SELECT ${HELD_COLUMNS} FROM held WHERE silence_id = $1 ORDER BY id DESC`,
      [silenceId],
    );
    return rows.map((r) => heldOfRow(r, silenceId));
  }

  /** How many alerts each silence held back, by silence id. */
  async heldCounts(): Promise<Map<number, number>> {
    const { rows } = await this.db().query<{ silence_id: number; n: number }>(
      'SELECT silence_id, COUNT(*) AS n FROM held GROUP BY silence_id ORDER BY silence_id',
    );
    return new Map(rows.map((r) => [r.silence_id, r.n]));
  }
}
