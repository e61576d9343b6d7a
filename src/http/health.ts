/**
 * Whether the daemon is healthy: every feed has succeeded within three of its intervals,
 * and no delivery target is stuck. A feed that has not succeeded yet is given three
 * intervals from the daemon's start (without a start time, as for `pipewatch status`, it
 * is unhealthy). A target is stuck when its oldest undelivered alert fell due longer ago
 * than `PIPEWATCH_DELIVERY_STUCK_AFTER`.
 */
import { type DeliveryBacklog, stuckTargets } from '../delivery/backlog.js';
import { formatDuration } from '../lib/duration.js';
import type { TargetKind } from '../rules/types.js';
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

/** The stuck targets of one channel kind (no addresses: `/healthz` may be seen widely). */
export interface StuckKind {
  channel: TargetKind;
  targets: number;
  oldest_pending_age_seconds: number;
}

export interface DeliveryHealth {
  healthy: boolean;
  stuck_after_seconds: number;
  stuck: StuckKind[];
  /** Why it is unhealthy, one line per channel kind. */
  reasons: string[];
}

export interface HealthReport {
  healthy: boolean;
  feeds: FeedHealth[];
  /** Absent where deliveries are not judged. */
  delivery?: DeliveryHealth;
}

/** Judges the delivery backlog: unhealthy while any target is stuck. */
export function assessDelivery(backlog: DeliveryBacklog): DeliveryHealth {
  const byKind = new Map<TargetKind, StuckKind>();
  for (const t of stuckTargets(backlog)) {
    const entry = byKind.get(t.kind) ?? {
      channel: t.kind,
      targets: 0,
      oldest_pending_age_seconds: 0,
    };
    entry.targets += 1;
    entry.oldest_pending_age_seconds = Math.max(
      entry.oldest_pending_age_seconds,
      t.oldest_pending_age_seconds,
    );
    byKind.set(t.kind, entry);
  }
  const limit = formatDuration(backlog.stuck_after_seconds * 1000);
  const stuck = [...byKind.values()];
  const reasons = stuck.map((k) => {
    const age = formatDuration(k.oldest_pending_age_seconds * 1000);
    const who = k.targets === 1 ? `1 ${k.channel} target` : `${k.targets} ${k.channel} targets`;
    return `delivery stuck: ${who} with an alert undelivered for ${age} (more than ${limit})`;
  });
  return {
    healthy: stuck.length === 0,
    stuck_after_seconds: backlog.stuck_after_seconds,
    stuck,
    reasons,
  };
}

/** A feed report with the deliveries judged too. */
export function withDelivery(report: HealthReport, backlog: DeliveryBacklog): HealthReport {
  const delivery = assessDelivery(backlog);
  return { ...report, healthy: report.healthy && delivery.healthy, delivery };
}

/** Assesses each scheduled feed against its state. */
export function assessHealth(
  feeds: ReadonlyArray<{ name: string; intervalMs: number }>,
  states: readonly FeedState[],
  now: Date,
  startedAt?: Date,
): HealthReport {
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
