/**
 * What the stored notices say about when the API refreshes: for each notice pipewatch
 * found new (not by the baseline), the service's creation instant and when pipewatch
 * first saw it. Read at each scheduling decision, so the learned refresh pattern
 * survives restarts with nothing of its own to persist.
 */
import type { UtcIso } from '../lib/time.js';
import { type Db, statement } from './database.js';

/** One notice found new: when the service says it created it, and when pipewatch saw it. */
export interface RefreshObservation {
  createdAt: UtcIso;
  firstSeenAt: UtcIso;
}

/**
 * The observations among the `scan` newest notices (by id, which the service allocates in
 * creation order) first seen at or after `since`, newest first. Bounded by `scan` so a
 * database of baseline notices only costs one short index walk.
 */
export function recentRefreshObservations(
  store: { db: Db },
  since: UtcIso,
  scan = 500,
): RefreshObservation[] {
  return statement<{ since: UtcIso; scan: number }, RefreshObservation>(
    store.db,
    `SELECT service_created_at AS createdAt, first_seen_at AS firstSeenAt
       FROM (SELECT id, service_created_at, first_seen_at, baseline
               FROM notices ORDER BY id DESC LIMIT @scan)
      WHERE baseline = 0 AND service_created_at IS NOT NULL AND first_seen_at >= @since
      ORDER BY id DESC`,
  ).all({ since, scan });
}
