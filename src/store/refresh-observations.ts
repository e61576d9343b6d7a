/**
 * What the stored notices say about when the API refreshes: for each notice, the
 * service's creation instant (the refresh that showed it), when pipewatch first saw it,
 * and whether the baseline stored it. Read at each scheduling decision, so the learned
 * refresh pattern survives restarts with nothing of its own to persist.
 */
import type { UtcIso } from '../lib/time.js';
import { type Db, statement } from './database.js';

/** One notice: when the service says it created it, when pipewatch saw it, and how. */
export interface RefreshObservation {
  createdAt: UtcIso;
  firstSeenAt: UtcIso;
  /**
   * Stored by the baseline: its creation is a refresh instant all the same, but its first
   * sighting says nothing of when that refresh was.
   */
  baseline: boolean;
}

/**
 * The observations among the `scan` newest notices (by id, which the service allocates in
 * creation order), newest first: notices found new first seen at or after `since`, and
 * baseline notices created at or after it. Bounded by `scan`, so a large database costs
 * one short index walk.
 */
export function recentRefreshObservations(db: Db, since: UtcIso, scan = 500): RefreshObservation[] {
  return statement<
    { since: UtcIso; scan: number },
    Omit<RefreshObservation, 'baseline'> & { baseline: number }
  >(
    db,
    `SELECT service_created_at AS createdAt, first_seen_at AS firstSeenAt, baseline
       FROM (SELECT id, service_created_at, first_seen_at, baseline
               FROM notices ORDER BY id DESC LIMIT @scan)
      WHERE service_created_at IS NOT NULL
        AND (CASE baseline WHEN 0 THEN first_seen_at ELSE service_created_at END) >= @since
      ORDER BY id DESC`,
  )
    .all({ since, scan })
    .map((row) => ({ ...row, baseline: row.baseline !== 0 }));
}
