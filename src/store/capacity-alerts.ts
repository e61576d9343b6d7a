/**
 * Where each capacity rule stands at each location (`capacity_state`): firing or ok, the
 * episode, when it last alerted, how often it repeated, and the last cycle judged. The
 * alerts decide the next state; this keeps it, and keeps `since` when the state stays.
 */
import type { UtcIso } from '../lib/time.js';
import type { Db } from './database.js';

/** One rule's state at one location of one pipeline. */
export interface CapacityAlertState {
  state: 'ok' | 'firing';
  /** How many times it has started firing. */
  episode: number;
  /** When it entered its current state. */
  since: UtcIso;
  last_alert_at: UtcIso | null;
  /** Repeats of the current firing episode sent so far. */
  repeats: number;
  /** When the last cycle judged was posted (`cycleOrderKey`), so an older one can be ignored. */
  last_cycle: string;
  last_value: number | null;
}

/** What a decision sets; `since` and `last_value` follow from it. */
export type CapacityAlertChange = Pick<
  CapacityAlertState,
  'state' | 'episode' | 'last_alert_at' | 'repeats' | 'last_cycle'
>;

/** Reads and writes `capacity_state`; its statements are prepared once, when the store opens. */
export class CapacityAlertStore {
  private readonly select;
  private readonly upsert;

  constructor(db: Db) {
    this.select = db.prepare<[string, string, string], CapacityAlertState>(
      `SELECT state, episode, since, last_alert_at, repeats, last_cycle, last_value
       FROM capacity_state WHERE rule = ? AND pipeline_slug = ? AND location = ?`,
    );
    this.upsert = db.prepare(
      `INSERT INTO capacity_state (rule, pipeline_slug, location, state, episode, since, last_alert_at, repeats, last_cycle, last_value)
       VALUES (@rule, @slug, @location, @state, @episode, @now, @last_alert_at, @repeats, @last_cycle, @value)
       ON CONFLICT (rule, pipeline_slug, location) DO UPDATE SET
         since = CASE WHEN capacity_state.state = excluded.state THEN capacity_state.since ELSE excluded.since END,
         state = excluded.state, episode = excluded.episode, last_alert_at = excluded.last_alert_at,
         repeats = excluded.repeats, last_cycle = excluded.last_cycle, last_value = excluded.last_value`,
    );
  }

  /** A rule's state at a location (its identifier, else its name); none before its first cycle. */
  get(rule: string, pipelineSlug: string, location: string): CapacityAlertState | undefined {
    return this.select.get(rule, pipelineSlug, location);
  }

  /**
   * Stores a rule's state at a location after judging `value` at `at`; `since` moves
   * only when the state changes.
   */
  put(
    rule: string,
    pipelineSlug: string,
    location: string,
    change: CapacityAlertChange,
    value: number,
    at: UtcIso,
  ): void {
    this.upsert.run({
      rule,
      slug: pipelineSlug,
      location,
      state: change.state,
      episode: change.episode,
      last_alert_at: change.last_alert_at,
      repeats: change.repeats,
      last_cycle: change.last_cycle,
      value,
      now: at,
    });
  }
}
