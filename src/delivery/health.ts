/**
 * Whether delivery is healthy: no target is stuck, that is, has an undelivered alert that
 * fell due longer ago than `PIPEWATCH_DELIVERY_STUCK_AFTER`. Judged by channel kind, with
 * no address, since `/healthz` may be seen widely.
 */

import type { TargetKind } from '../domain/targets.js';
import { formatDuration } from '../lib/duration.js';
import { type DeliveryBacklog, stuckTargets } from './backlog.js';

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
