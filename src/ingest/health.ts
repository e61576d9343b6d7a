/**
 * Whether the feeds are healthy: each has succeeded within three of its intervals. A feed
 * that has not succeeded yet is given three intervals from the daemon's start (without a
 * start time, as for `pipewatch status`, it is unhealthy).
 */
import type { FeedState } from '../store/sync-state.js';

/** How many intervals a feed may go without a success. */
export const HEALTH_INTERVALS = 3;

export interface FeedHealth {
  feed: string;
  healthy: boolean;
  last_success_at: string | null;
  last_error: string | null;
  /** Why it is unhealthy. */
  reason: string | null;
}

/** Every feed's health, and whether all are healthy. */
export interface FeedsHealth {
  healthy: boolean;
  feeds: FeedHealth[];
}

/** Assesses each scheduled feed against its state. */
export function assessHealth(
  feeds: ReadonlyArray<{ name: string; intervalMs: number }>,
  states: readonly FeedState[],
  now: Date,
  startedAt?: Date,
): FeedsHealth {
  const byFeed = new Map(states.map((s) => [s.feed, s]));
  const report = feeds.map((feed): FeedHealth => {
    const state = byFeed.get(feed.name);
    const allowedMs = HEALTH_INTERVALS * feed.intervalMs;
    const last = state?.last_success_at ? Date.parse(state.last_success_at) : undefined;
    const since = last ?? startedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
    const healthy = now.getTime() - since <= allowedMs;
    const minutes = Math.round(allowedMs / 60_000);
    const error = state?.last_error ? `; last error: ${state.last_error}` : '';
    return {
      feed: feed.name,
      healthy,
      last_success_at: state?.last_success_at ?? null,
      last_error: state?.last_error ?? null,
      reason: healthy
        ? null
        : last === undefined
          ? `no successful ${feed.name} sync ${startedAt ? `since start (${minutes} min)` : 'yet'}${error}`
          : `no successful ${feed.name} sync for more than ${minutes} min${error}`,
    };
  });
  return { healthy: report.every((f) => f.healthy), feeds: report };
}
