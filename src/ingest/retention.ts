/**
 * The daily retention job: prunes what is older than `PIPEWATCH_RETENTION` (see
 * `store/retention.ts` for what goes and what stays) and vacuums the space it freed, so
 * the database file stops growing with time. Scheduled beside the feeds, so it runs at
 * start and then once a day; with retention off it is not scheduled at all.
 */
import { toUtcIso } from '../lib/time.js';
import type { IngestDeps } from './events.js';

/** The job's name, as `status` and the logs show it. */
export const RETENTION_FEED = 'retention';
/** It runs once a day. */
export const RETENTION_INTERVAL_MS = 86_400_000;

/** Prunes what is older than `retentionMs` before now, then vacuums. */
export async function pruneOld(
  deps: Pick<IngestDeps, 'store' | 'clock' | 'logger'>,
  retentionMs: number,
): Promise<void> {
  const now = deps.clock.now();
  const cutoff = toUtcIso(new Date(now.getTime() - retentionMs));
  const counts = await deps.store.retention.prune(cutoff, toUtcIso(now));
  const pages = await deps.store.retention.vacuum();
  const pruned = Object.values(counts).reduce((a, b) => a + b, 0);
  deps.logger.info(
    { feed: RETENTION_FEED, cutoff, ...counts, pages_freed: pages },
    pruned === 0
      ? `retention: nothing older than ${cutoff} to prune`
      : `retention: pruned ${pruned} rows older than ${cutoff}; the file gave back ${pages} pages`,
  );
}
