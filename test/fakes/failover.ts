/**
 * The stage of a failover: one upstream (the project's simulator, started here, which
 * every replica polls through `PIPEWATCH_API_URL`), one webhook receiver as the only
 * target of one notice rule, and the environment of replicas on one PostgreSQL database
 * with a short lease. Notices are added in bursts through the simulator's control; what
 * the receiver got is counted by notice and by `X-Pipewatch-Delivery`, the id a receiver
 * drops resends by (docs/webhook.md).
 */

import { type SimulatedApi, startSimulatedApi } from './simulated-api.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook.js';

/** The lease the failover tests and benchmark run with: the shortest allowed is 3 s. */
export const FAILOVER_LEASE_MS = 3_000;

/** The pipeline the burst's notices are on, which the rule watches. */
const PIPELINE = 'transco';

export interface FailoverStage {
  api: SimulatedApi;
  receiver: WebhookReceiver;
  /** The replicas' environment: the simulator, the database, the lease. */
  env: Record<string, string>;
  /** Adds `count` new notices the rule matches; their ids. */
  burst(count: number): number[];
  /** What the receiver got of the notices `expected`; see `DeliveryCount`. */
  count(expected: readonly number[]): DeliveryCount;
  close(): Promise<void>;
}

/** What reached the receiver of the notices a test expects. */
export interface DeliveryCount {
  /** Expected notices no accepted delivery carried. */
  lost: number[];
  /**
   * Requests beyond the first of each delivery id, answered or not: a resend of what the
   * receiver had already had, which it drops by the id.
   */
  duplicates: number;
  /** Requests in all, answered or not. */
  arrived: number;
  /** Notices of accepted deliveries that no test expected (none should be). */
  unexpected: number[];
}

/** The notice id a webhook body is about. */
export function noticeIdOf(body: string): number {
  return (JSON.parse(body) as { notice: { id: number } }).notice.id;
}

/** The simulator, the receiver and the replicas' environment, on the database at `databaseUrl`. */
export async function startFailoverStage(databaseUrl: string): Promise<FailoverStage> {
  const receiver = await startWebhookReceiver();
  // The daemons run on the real clock: the simulator starts at the same time.
  const start = new Date(Math.floor(Date.now() / 1000) * 1000);
  const api = await startSimulatedApi({
    seed: 7,
    start,
    rules: `
rules:
  - name: failover-burst
    notices:
      pipelines: [${PIPELINE}]
    notify:
      - webhook: ${receiver.url}/alerts
`,
  });
  let added = 0;
  return {
    api,
    receiver,
    env: {
      ...api.env,
      PIPEWATCH_DATABASE_URL: databaseUrl,
      PIPEWATCH_LEADER_LEASE: `${FAILOVER_LEASE_MS / 1000}s`,
    },
    burst(count) {
      return Array.from({ length: count }, () => {
        added += 1;
        return api.sim.control.addNotice({
          pipeline_slug: PIPELINE,
          type: 'Capacity Constraint',
          category: 'Critical',
          status: 'Initiate',
          subject: `Capacity Constraint - Station ${100 + added} - failover burst`,
          response_at: '',
        }).id;
      });
    },
    count(expected) {
      const ids = new Set<string>();
      let duplicates = 0;
      for (const hook of receiver.arrived) {
        const id = String(hook.headers['x-pipewatch-delivery']);
        if (ids.has(id)) duplicates += 1;
        ids.add(id);
      }
      const delivered = new Set(receiver.received.map((h) => noticeIdOf(h.body)));
      const wanted = new Set(expected);
      return {
        lost: expected.filter((id) => !delivered.has(id)),
        duplicates,
        arrived: receiver.arrived.length,
        unexpected: [...delivered].filter((id) => !wanted.has(id)),
      };
    },
    async close() {
      await Promise.all([api.sim.close(), receiver.close()]);
    },
  };
}
