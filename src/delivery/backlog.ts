/**
 * What waits to be delivered, per target, and which targets are stuck: a target whose
 * oldest undelivered alert fell due longer ago than `PIPEWATCH_DELIVERY_STUCK_AFTER`
 * (a receiver that never answers in time, a platform refusing for hours). `/healthz`,
 * `pipewatch status` and `/metrics` read it, so a stuck target is seen without reading
 * the log. Targets are shown as `targetLabel` shows them (a webhook by scheme and host).
 */
import type { TargetKind } from '../domain/targets.js';
import { targetLabel } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import type { OutboxBacklog } from '../store/outbox.js';

const KINDS = {
  slack: true,
  slack_dm: true,
  discord: true,
  discord_dm: true,
  email: true,
  webhook: true,
  pagerduty: true,
  teams: true,
  console: true,
} satisfies Record<TargetKind, true>;

/** Every channel kind, so per-kind gauges have a series for each, waiting or not. */
export const CHANNEL_KINDS = Object.keys(KINDS) as TargetKind[];

/** One target with alerts waiting. */
export interface TargetBacklog {
  /** The target as it may be shown. */
  target: string;
  kind: TargetKind;
  /** Alerts waiting, those in flight included. */
  pending: number;
  in_flight: number;
  /** When the oldest waiting alert was decided, and so fell due. */
  oldest_pending_at: UtcIso;
  oldest_pending_age_seconds: number;
  stuck: boolean;
  /** Why the first alert that failed did, if one did. */
  last_error: string | null;
}

/** The backlog of every target, and the threshold it was judged by. */
export interface DeliveryBacklog {
  stuck_after_seconds: number;
  /** Every target with alerts waiting, oldest first. */
  targets: TargetBacklog[];
}

/** Reads the outbox's waiting deliveries per target and judges each against `stuckAfterMs`. */
export async function deliveryBacklog(
  store: AsyncStore,
  now: Date,
  stuckAfterMs: number,
): Promise<DeliveryBacklog> {
  return judgeBacklog(await store.outbox.backlog(), now, stuckAfterMs);
}

/**
 * Judges the outbox's waiting deliveries per target against `stuckAfterMs`: for a
 * reader that has them already (read once, shown to `/healthz` and `/metrics` alike).
 */
export function judgeBacklog(
  backlog: readonly OutboxBacklog[],
  now: Date,
  stuckAfterMs: number,
): DeliveryBacklog {
  const targets = backlog.map((b): TargetBacklog => {
    const ageMs = Math.max(0, now.getTime() - Date.parse(b.oldest_at));
    return {
      target: targetLabel(b.target),
      kind: b.target.kind,
      pending: b.pending,
      in_flight: b.in_flight,
      oldest_pending_at: b.oldest_at,
      oldest_pending_age_seconds: Math.floor(ageMs / 1000),
      stuck: ageMs > stuckAfterMs,
      last_error: b.last_error,
    };
  });
  return { stuck_after_seconds: stuckAfterMs / 1000, targets };
}

/** The stuck targets of a backlog. */
export function stuckTargets(backlog: DeliveryBacklog): TargetBacklog[] {
  return backlog.targets.filter((t) => t.stuck);
}
