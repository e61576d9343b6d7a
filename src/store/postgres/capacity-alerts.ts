/**
 * Where each capacity rule stands at each location, on PostgreSQL, with the methods of
 * `CapacityAlertStore` (`../capacity-alerts.ts`), each answering a promise of what the
 * SQLite one returns.
 */
import type { UtcIso } from '../../lib/time.js';
import type { CapacityAlertChange, CapacityAlertState } from '../capacity-alerts.js';
import type { Connection } from './queryable.js';

/** Reads and writes `capacity_state` (see `CapacityAlertStore`). */
export class PgCapacityAlertStore {
  constructor(private readonly db: Connection) {}

  /** A rule's state at a location (its identifier, else its name); none before its first cycle. */
  async get(
    rule: string,
    pipelineSlug: string,
    location: string,
  ): Promise<CapacityAlertState | undefined> {
    const { rows } = await this.db().query<CapacityAlertState>(
      `SELECT state, episode, since, last_alert_at, repeats, last_cycle, last_value
       FROM capacity_state WHERE rule = $1 AND pipeline_slug = $2 AND location = $3`,
      [rule, pipelineSlug, location],
    );
    return rows[0];
  }

  /**
   * Stores a rule's state at a location after judging `value` at `at`; `since` moves
   * only when the state changes. A value that is not a number (NaN) is kept as null, as
   * SQLite keeps it, where PostgreSQL would keep NaN.
   */
  async put(
    rule: string,
    pipelineSlug: string,
    location: string,
    change: CapacityAlertChange,
    value: number,
    at: UtcIso,
  ): Promise<void> {
    await this.db().query(
      `INSERT INTO capacity_state (rule, pipeline_slug, location, state, episode, since, last_alert_at, repeats, last_cycle, last_value)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (rule, pipeline_slug, location) DO UPDATE SET
         since = CASE WHEN capacity_state.state = excluded.state THEN capacity_state.since ELSE excluded.since END,
         state = excluded.state, episode = excluded.episode, last_alert_at = excluded.last_alert_at,
         repeats = excluded.repeats, last_cycle = excluded.last_cycle, last_value = excluded.last_value`,
      [
        rule,
        pipelineSlug,
        location,
        change.state,
        change.episode,
        at,
        change.last_alert_at,
        change.repeats,
        change.last_cycle,
        Number.isNaN(value) ? null : value,
      ],
    );
  }
}
