/**
 * Silences: for a while, alerts matching them are held back instead of sent. Each held
 * alert is kept under the key it would have had in the outbox, so it is decided once,
 * ever, like a sent one; when the silence ends, its held alerts are summed up to each
 * target in one message (see `alerts/silences.ts`).
 */

import { z } from 'zod';
import type { Target } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';
import { type Db, expectRow, statement } from './database.js';
import { parseStored, readJson, readStoredTarget, StoredDataError } from './stored-json.js';

/** What a matcher compares: the alert's pipeline slug, target key, rule name, and notice fields. */
export const MATCHER_LABELS = ['pipeline', 'target', 'rule', 'type', 'category', 'status'] as const;
export type MatcherLabel = (typeof MATCHER_LABELS)[number];

/** How, as Alertmanager's matchers: equal, not equal, matches a regex, does not match one. */
export const MATCHER_OPS = ['=', '!=', '=~', '!~'] as const;
export type MatcherOp = (typeof MATCHER_OPS)[number];

/**
 * One matcher as it was written (`type!~"planned maint.*"`): the value is the literal or
 * the regular expression the user gave, so `silence list` shows what they said. Target
 * values of `=` and `!=` are target keys (`slack:C0GAS`, `slack:#gas`).
 */
export interface SilenceMatcher {
  key: MatcherLabel;
  op: MatcherOp;
  value: string;
}

/** What a silence matches: every matcher, except that `=` matchers of one key are alternatives. */
export type SilenceMatchers = SilenceMatcher[];

/** A row of `silences`. */
export interface SilenceRow {
  id: number;
  matchers: SilenceMatchers;
  starts_at: UtcIso;
  /** Null: until lifted (an email unsubscribe). */
  ends_at: UtcIso | null;
  created_by: string;
  comment: string | null;
  created_at: UtcIso;
  /** Set when someone ended it before its time. */
  lifted_at: UtcIso | null;
  lifted_by: string | null;
  /** Set once its end summary was decided. */
  summarized_at: UtcIso | null;
}

export type NewSilence = Pick<
  SilenceRow,
  'matchers' | 'starts_at' | 'ends_at' | 'created_by' | 'comment' | 'created_at'
> & {
  /** The chat workspace it was made in (`slack:T0GAS`), for the limits per workspace. */
  workspace?: string | null;
};

/**
 * One alert a silence held back: the alert's own summary, as the layer above wrote it
 * (which reads it back through its own schema; `undefined` when it is not JSON).
 */
export interface HeldRow {
  silence_id: number;
  rule: string;
  target: Target;
  alert: unknown;
  at: UtcIso;
}

const matchersSchema = z.array(
  z.object({ key: z.enum(MATCHER_LABELS), op: z.enum(MATCHER_OPS), value: z.string() }),
) satisfies z.ZodType<SilenceMatchers>;

/** A silence as its table holds it: its matchers as JSON text. */
export interface SilenceTableRow extends Omit<SilenceRow, 'matchers'> {
  matchers_json: string;
}

/** The columns a `SilenceTableRow` is read from. */
export const SILENCE_COLUMNS =
  'id, matchers_json, starts_at, ends_at, created_by, comment, created_at, lifted_at, lifted_by, summarized_at';

/** A silence read back from its table's row, its matchers checked (`StoredDataError` when not). */
export const silenceOfRow = (r: SilenceTableRow): SilenceRow => {
  const { matchers_json, ...rest } = r;
  return {
    ...rest,
    matchers: parseStored(matchersSchema, matchers_json, `the matchers of silence ${r.id}`),
  };
};

/** The instant a silence ends: lifted, or its end; null while it has neither. */
export function silenceEnd(s: SilenceRow): UtcIso | null {
  if (s.lifted_at !== null && (s.ends_at === null || s.lifted_at < s.ends_at)) return s.lifted_at;
  return s.ends_at;
}

/** An alert a silence held back, as its table holds it. */
export interface HeldTableRow {
  silence_id: number;
  rule: string;
  target: string;
  target_json: string;
  alert_json: string;
  at: string;
}

/** The columns a `HeldTableRow` is read from. */
export const HELD_COLUMNS = 'silence_id, rule, target, target_json, alert_json, at';

/**
 * A held alert read back from its row; `StoredDataError` when its target cannot be read
 * back. Its alert is the layer above's to read.
 */
export function heldOfRow(r: HeldTableRow, silenceId: number): HeldRow {
  const target = readStoredTarget(r.target_json, r.target);
  if (!target.ok)
    throw new StoredDataError(
      `the database holds an alert held back by silence ${silenceId} whose ${target.problem}`,
    );
  const alert = readJson(r.alert_json);
  return {
    silence_id: r.silence_id,
    rule: r.rule,
    target: target.value,
    alert: alert.ok ? alert.value : undefined,
    at: r.at,
  };
}

/** Reads and writes `silences` and `held`. */
export class SilenceStore {
  constructor(private readonly db: Db) {}

  /** Stores a silence; returns its id. */
  add(s: NewSilence): number {
    const result = statement(
      this.db,
      `INSERT INTO silences (matchers_json, starts_at, ends_at, created_by, comment, created_at, workspace)
       VALUES (@matchers_json, @starts_at, @ends_at, @created_by, @comment, @created_at, @workspace)`,
    ).run({
      workspace: s.workspace ?? null,
      matchers_json: JSON.stringify(s.matchers),
      starts_at: s.starts_at,
      ends_at: s.ends_at,
      created_by: s.created_by,
      comment: s.comment,
      created_at: s.created_at,
    });
    return Number(result.lastInsertRowid);
  }

  get(id: number): SilenceRow | undefined {
    const row = statement<[number], SilenceTableRow>(
      this.db,
      `SELECT ${SILENCE_COLUMNS} FROM silences WHERE id = ?`,
    ).get(id);
    return row && silenceOfRow(row);
  }

  /** The silences in force at `now`. */
  active(now: UtcIso): SilenceRow[] {
    return statement<{ now: string }, SilenceTableRow>(
      this.db,
      `SELECT ${SILENCE_COLUMNS} FROM silences
       WHERE starts_at <= @now AND (ends_at IS NULL OR ends_at > @now) AND lifted_at IS NULL
       ORDER BY id`,
    )
      .all({ now })
      .map(silenceOfRow);
  }

  /**
   * The silences in force at `now` on one of `targets` (target keys), or made by `by`:
   * what chat lists for a channel or a person. Chosen by SQLite, so that a channel's
   * `list` does not parse the thousands of silences one person may have elsewhere.
   */
  activeOn(now: UtcIso, targets: readonly string[], by?: string): SilenceRow[] {
    return statement<{ now: string; targets: string; by: string | null }, SilenceTableRow>(
      this.db,
      `SELECT ${SILENCE_COLUMNS} FROM silences
       WHERE starts_at <= @now AND (ends_at IS NULL OR ends_at > @now) AND lifted_at IS NULL
         AND (created_by = @by OR EXISTS (
           SELECT 1 FROM json_each(matchers_json) m
           WHERE m.value ->> '$.key' = 'target' AND m.value ->> '$.op' = '='
             AND m.value ->> '$.value' IN (SELECT value FROM json_each(@targets))))
       ORDER BY id`,
    )
      .all({ now, targets: JSON.stringify(targets), by: by ?? null })
      .map(silenceOfRow);
  }

  /**
   * The silences not ended at `now`, oldest first: those in force and those yet to start,
   * which a reader that keeps them for a while (`alerts/silence-index.ts`) checks again
   * at each use.
   */
  notEnded(now: UtcIso): SilenceRow[] {
    return statement<{ now: string }, SilenceTableRow>(
      this.db,
      `SELECT ${SILENCE_COLUMNS} FROM silences
       WHERE (ends_at IS NULL OR ends_at > @now) AND lifted_at IS NULL
       ORDER BY id`,
    )
      .all({ now })
      .map(silenceOfRow);
  }

  /** A number that changes with every change to any silence, by any process. */
  revision(): number {
    const row = statement<[], { n: number }>(
      this.db,
      "SELECT n FROM revisions WHERE name = 'silences'",
    ).get();
    return expectRow(row, 'revision counter of silences').n;
  }

  /** Every silence not ended before `since`, newest first; all of them when `since` is undefined. */
  list(since?: UtcIso): SilenceRow[] {
    const rows = statement<[], SilenceTableRow>(
      this.db,
      `SELECT ${SILENCE_COLUMNS} FROM silences ORDER BY id DESC`,
    )
      .all()
      .map(silenceOfRow);
    if (since === undefined) return rows;
    return rows.filter((s) => {
      const end = silenceEnd(s);
      return end === null || end >= since;
    });
  }

  /** Ends a silence now; returns false when there is none in force by that id. */
  lift(id: number, by: string, now: UtcIso): boolean {
    return (
      statement(
        this.db,
        `UPDATE silences SET lifted_at = ?, lifted_by = ?
         WHERE id = ? AND lifted_at IS NULL AND (ends_at IS NULL OR ends_at > ?)`,
      ).run(now, by, id, now).changes > 0
    );
  }

  /**
   * Moves the end of a silence not ended at `now` (nor lifted, nor endless) to `endsAt`;
   * false when there is none such by that id.
   */
  setEnd(id: number, endsAt: UtcIso, now: UtcIso): boolean {
    return (
      statement(
        this.db,
        `UPDATE silences SET ends_at = ?
         WHERE id = ? AND lifted_at IS NULL AND ends_at IS NOT NULL AND ends_at > ?`,
      ).run(endsAt, id, now).changes > 0
    );
  }

  /** Silences that have ended by `now` and whose summary is not decided yet. */
  endedUnsummarized(now: UtcIso): SilenceRow[] {
    return statement<{ now: string }, SilenceTableRow>(
      this.db,
      `SELECT ${SILENCE_COLUMNS} FROM silences
       WHERE summarized_at IS NULL AND (lifted_at IS NOT NULL OR (ends_at IS NOT NULL AND ends_at <= @now))
       ORDER BY id`,
    )
      .all({ now })
      .map(silenceOfRow);
  }

  markSummarized(id: number, now: UtcIso): void {
    statement(this.db, 'UPDATE silences SET summarized_at = ? WHERE id = ?').run(now, id);
  }

  /**
   * Keeps one held-back alert under its alert key; false when that key was held before
   * (the alert was decided already).
   */
  hold(key: string, row: HeldRow & { targetKey: string }): boolean {
    return (
      statement(
        this.db,
        `INSERT INTO held (key, silence_id, rule, target, target_json, alert_json, at)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`,
      ).run(
        key,
        row.silence_id,
        row.rule,
        row.targetKey,
        JSON.stringify(row.target),
        JSON.stringify(row.alert),
        row.at,
      ).changes > 0
    );
  }

  /**
   * How many silences made by one person (`slack:U0ALICE`) or in one chat workspace
   * (`slack:T0GAS`) are in force at `now` or still to come.
   */
  countInForce(of: { createdBy: string } | { workspace: string }, now: UtcIso): number {
    const [column, value] =
      'createdBy' in of ? ['created_by', of.createdBy] : ['workspace', of.workspace];
    return (
      statement<[string, string], { n: number }>(
        this.db,
        `SELECT COUNT(*) AS n FROM silences
       WHERE ${column} = ? AND lifted_at IS NULL AND (ends_at IS NULL OR ends_at > ?)`,
      ).get(value, now)?.n ?? 0
    );
  }

  /** Whether any alert was ever held back (and not pruned). */
  anyHeld(): boolean {
    return statement(this.db, 'SELECT 1 FROM held LIMIT 1').get() !== undefined;
  }

  /** Whether an alert key was held back. */
  isHeld(key: string): boolean {
    return statement<[string]>(this.db, 'SELECT 1 FROM held WHERE key = ?').get(key) !== undefined;
  }

  /**
   * What a silence held back, newest first. Throws `StoredDataError` for one whose target
   * cannot be read back; its alert is the layer above's to read.
   */
  heldBy(silenceId: number): HeldRow[] {
    return statement<[number], HeldTableRow>(
      this.db,
      `SELECT ${HELD_COLUMNS} FROM held WHERE silence_id = ? ORDER BY id DESC`,
    )
      .all(silenceId)
      .map((r) => heldOfRow(r, silenceId));
  }

  /** How many alerts each silence held back, by silence id. */
  heldCounts(): Map<number, number> {
    const rows = statement<[], { silence_id: number; n: number }>(
      this.db,
      'SELECT silence_id, COUNT(*) AS n FROM held GROUP BY silence_id',
    ).all();
    return new Map(rows.map((r) => [r.silence_id, r.n]));
  }
}
