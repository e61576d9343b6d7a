/**
 * What the HTTP port tells a reader who has not shown the status token: `/healthz`
 * always, `/status` on a loopback address. Built by picking known fields, never by
 * removing known secrets, so that a field added to the full report later stays out until
 * it is chosen here. It carries feed names, pipeline slugs, cycles, counts, times and
 * error codes; never error text (an upstream message may echo a user name, a channel's
 * refusal names the channel, an SMTP refusal the recipient), targets, rule names or
 * dead deliveries' reasons.
 */
import type { DeliveryBacklog } from '../delivery/backlog.js';
import type { DeliveryHealth } from '../delivery/health.js';
import type { CapacityPlanReport, StatusReport } from '../ingest/feeds.js';
import type { OutboxSummary } from '../store/outbox.js';
import type { FeedState } from '../store/sync-state.js';
import type { HealthReport } from './health.js';

/**
 * The full `/status` of the daemon: the status report, the outbox, what waits per target
 * (targets named) and the rule count.
 */
export type FullStatus = StatusReport & {
  outbox: OutboxSummary;
  delivery: DeliveryBacklog;
  rules: number;
};

/** What the public `/status` says is left out, and how to get it. */
export const REDACTED_NOTE =
  'error text, the reasons of dead deliveries and rule names are left out; send Authorization: Bearer <PIPEWATCH_STATUS_TOKEN>, or run `pipewatch status` on the host';

/**
 * Sync states with each error's text replaced by its code (`UPSTREAM_AUTH`), so that a
 * health report built from them names the kind of failure and nothing it quoted.
 */
export function withErrorCodes(states: readonly FeedState[]): FeedState[] {
  return states.map((s) => ({
    ...s,
    last_error: s.last_error === null ? null : (s.last_error_code ?? 'ERROR'),
  }));
}

/** One feed as `/healthz` shows it. */
export interface PublicFeedHealth {
  feed: string;
  healthy: boolean;
  last_success_at: string | null;
  reason: string | null;
}

/** The `/healthz` body. The report must come from `withErrorCodes` states. */
export function healthBody(report: HealthReport): {
  status: 'ok' | 'unhealthy';
  role?: 'leader' | 'standby';
  reasons: string[];
  feeds: PublicFeedHealth[];
  delivery?: DeliveryHealth;
} {
  return {
    status: report.healthy ? 'ok' : 'unhealthy',
    ...(report.role ? { role: report.role } : {}),
    reasons: [
      ...report.feeds.flatMap((f) => (f.reason ? [f.reason] : [])),
      ...(report.delivery?.reasons ?? []),
    ],
    feeds: report.feeds.map((f) => ({
      feed: f.feed,
      healthy: f.healthy,
      last_success_at: f.last_success_at,
      reason: f.reason,
    })),
    // Stuck deliveries by channel kind and age only: no target is named.
    ...(report.delivery ? { delivery: report.delivery } : {}),
  };
}

/** The capacity plan without who asked for each pipeline. */
function publicPlan(plan: CapacityPlanReport | null) {
  if (plan === null) return null;
  return {
    pipelines: plan.pipelines.map((p) => ({
      slug: p.slug,
      cycles: p.cycles,
      implicit: p.implicit,
      capacity_missing_at: p.capacity_missing_at,
    })),
    requests_per_hour: plan.requests_per_hour,
  };
}

/**
 * The status for a reader without the token. `health` (from `withErrorCodes` states,
 * at the same time) gives each feed's reason.
 */
export function publicStatus(full: FullStatus, health: HealthReport) {
  const reasons = new Map(health.feeds.map((f) => [f.feed, f.reason]));
  return {
    generated_at: full.generated_at,
    healthy: full.healthy,
    redacted: REDACTED_NOTE,
    feeds: full.feeds.map((f) => ({
      feed: f.feed,
      last_attempt_at: f.last_attempt_at,
      last_success_at: f.last_success_at,
      last_error_code: f.last_error_code,
      last_error_at: f.last_error_at,
      consecutive_failures: f.consecutive_failures,
      interval_seconds: f.interval_seconds,
      healthy: f.healthy,
      reason: reasons.get(f.feed) ?? null,
    })),
    counts: full.counts,
    capacity_plan: publicPlan(full.capacity_plan),
    outbox: {
      pending: full.outbox.pending,
      sent: full.outbox.sent,
      dead: full.outbox.dead,
      oldest_pending_at: full.outbox.oldest_pending_at,
    },
    // Stuck targets by channel kind and age only, as /healthz gives them.
    delivery: health.delivery ?? null,
    rules: full.rules,
    // Counts only: paused channels and their reasons name channels.
    subscriptions: { total: full.subscriptions.total, paused: full.subscriptions.paused },
    silences: { in_force: full.silences.in_force },
  };
}
