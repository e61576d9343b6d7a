/**
 * Whether the daemon is healthy, as `/healthz` and `/status` say: every feed healthy
 * (`ingest/health.ts`) and no delivery target stuck (`delivery/health.ts`).
 */
import type { DeliveryBacklog } from '../delivery/backlog.js';
import { assessDelivery, type DeliveryHealth } from '../delivery/health.js';
import type { FeedsHealth } from '../ingest/health.js';

/** The feeds' health with the deliveries'. */
export interface HealthReport extends FeedsHealth {
  /** Absent where deliveries are not judged. */
  delivery?: DeliveryHealth;
  /** This replica's role: the leader polls, decides and sends (SQLite: always). */
  role?: 'leader' | 'standby';
}

/** A feed report with the deliveries judged too. */
export function withDelivery(report: FeedsHealth, backlog: DeliveryBacklog): HealthReport {
  const delivery = assessDelivery(backlog);
  return { ...report, healthy: report.healthy && delivery.healthy, delivery };
}
