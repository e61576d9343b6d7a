/**
 * Prometheus metrics of the daemon, in a registry of its own (not prom-client's global
 * one) so that each daemon, and each test, counts for itself.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CHANNEL_KINDS, type DeliveryBacklog } from '../delivery/backlog.js';
import { registerProcessMetrics } from './process-metrics.js';

/** Every metric pipewatch exports. */
export class Metrics {
  readonly registry = new Registry();

  /** Sync runs by feed and result (`ok`, `error`). */
  readonly syncs = new Counter({
    name: 'pipewatch_syncs_total',
    help: 'Sync runs by feed and result',
    labelNames: ['feed', 'result'] as const,
    registers: [this.registry],
  });

  /** Failed sync runs by feed and error code. */
  readonly syncErrors = new Counter({
    name: 'pipewatch_sync_errors_total',
    help: 'Failed sync runs by feed and error code',
    labelNames: ['feed', 'code'] as const,
    registers: [this.registry],
  });

  readonly syncDuration = new Histogram({
    name: 'pipewatch_sync_duration_seconds',
    help: 'Duration of sync runs',
    labelNames: ['feed'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  readonly lastSuccess = new Gauge({
    name: 'pipewatch_feed_last_success_timestamp_seconds',
    help: 'When each feed last synced successfully (Unix time)',
    labelNames: ['feed'] as const,
    registers: [this.registry],
  });

  /** Notices seen by the notice sync, by classification (`new`, `updated`, `unchanged`). */
  readonly notices = new Counter({
    name: 'pipewatch_notices_total',
    help: 'Notices seen by the notice sync, by classification',
    labelNames: ['change'] as const,
    registers: [this.registry],
  });

  /** Capacity cycles fetched, by classification (`new`, `updated`, `unchanged`). */
  readonly capacityCycles = new Counter({
    name: 'pipewatch_capacity_cycles_total',
    help: 'Capacity cycles fetched, by classification',
    labelNames: ['change'] as const,
    registers: [this.registry],
  });

  /** Malformed upstream records skipped, by endpoint kind. */
  readonly skippedRecords = new Counter({
    name: 'pipewatch_upstream_skipped_records_total',
    help: 'Malformed records the API sent and pipewatch skipped',
    labelNames: ['feed'] as const,
    registers: [this.registry],
  });

  /** Alerts by channel and delivery result (`sent`, `retry`, `dead`). */
  readonly deliveries = new Counter({
    name: 'pipewatch_deliveries_total',
    help: 'Alert delivery attempts by channel and result (sent, retry, dead)',
    labelNames: ['channel', 'result'] as const,
    registers: [this.registry],
  });

  /** Messages sent, by channel; a digest is one message for many alerts. */
  readonly deliveryMessages = new Counter({
    name: 'pipewatch_delivery_messages_total',
    help: 'Messages sent by channel (a digest carries many alerts)',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });

  /** Outbox rows by status (`pending`, `sent`, `dead`). */
  readonly outbox = new Gauge({
    name: 'pipewatch_outbox_alerts',
    help: 'Alerts in the outbox by status (pending, sent, dead)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  /** Reads the delivery backlog when `/metrics` is scraped; unset: the gauges stay empty. */
  private backlog: (() => Promise<DeliveryBacklog>) | undefined;

  /**
   * Age of the oldest undelivered alert per channel kind (0 when none waits). By kind,
   * not target: targets hold addresses and tokens, and their number is unbounded.
   */
  readonly deliveryOldestPending = new Gauge({
    name: 'pipewatch_delivery_oldest_pending_age_seconds',
    help: 'Age of the oldest undelivered alert, by channel kind (0 when none waits)',
    labelNames: ['channel'] as const,
    registers: [this.registry],
    collect: async () => {
      for (const [channel, k] of await this.backlogByKind())
        this.deliveryOldestPending.set({ channel }, k.oldest);
    },
  });

  /** Targets whose oldest undelivered alert is older than PIPEWATCH_DELIVERY_STUCK_AFTER. */
  readonly deliveryStuckTargets = new Gauge({
    name: 'pipewatch_delivery_stuck_targets',
    help: 'Delivery targets whose oldest undelivered alert is older than PIPEWATCH_DELIVERY_STUCK_AFTER, by channel kind',
    labelNames: ['channel'] as const,
    registers: [this.registry],
    collect: async () => {
      for (const [channel, k] of await this.backlogByKind())
        this.deliveryStuckTargets.set({ channel }, k.stuck);
    },
  });

  /**
   * 1 while this replica leads (polls, decides, sends), 0 while it stands by. A single
   * SQLite process always leads. Summed over replicas it is 1: 0 means none leads, 2 is
   * impossible by design (fencing) and worth an alert all the same.
   */
  readonly leader = new Gauge({
    name: 'pipewatch_leader',
    help: 'Whether this replica leads: 1 leader, 0 standby',
    registers: [this.registry],
  });

  /** Changes of this replica's role (takeovers and step-downs). */
  readonly leaderChanges = new Counter({
    name: 'pipewatch_leader_changes_total',
    help: "Changes of this replica's role, leader or standby",
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) registerProcessMetrics(this.registry);
  }

  /** Where the delivery gauges read the backlog from, at each scrape. */
  watchDelivery(backlog: () => Promise<DeliveryBacklog>): void {
    this.backlog = backlog;
  }

  /** The oldest age and the stuck targets per channel kind; nothing without a backlog to read. */
  private async backlogByKind(): Promise<Map<string, { oldest: number; stuck: number }>> {
    const byKind = new Map<string, { oldest: number; stuck: number }>();
    if (!this.backlog) return byKind;
    for (const kind of CHANNEL_KINDS) byKind.set(kind, { oldest: 0, stuck: 0 });
    for (const t of (await this.backlog()).targets) {
      const k = byKind.get(t.kind) ?? { oldest: 0, stuck: 0 };
      byKind.set(t.kind, k);
      k.oldest = Math.max(k.oldest, t.oldest_pending_age_seconds);
      if (t.stuck) k.stuck += 1;
    }
    return byKind;
  }

  /** The exposition text for `/metrics`. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
