/**
 * Operational alerts, for whoever runs pipewatch rather than for schedulers: the API's
 * catalog changed (schema drift), so fields may have been added, removed or retyped.
 * Sent to `PIPEWATCH_OPS_TARGET`, once per table and new catalog hash.
 */
import type { SchemaDriftEvent } from '../ingest/events.js';
import type { Target } from '../rules/types.js';
import { type DecisionContext, enqueueAll } from './context.js';

/** The rule name operational alerts carry. */
export const OPERATIONS_RULE = 'pipewatch-operations';

/** Queues a schema-drift alert to the operations target. Call inside the event's transaction. */
export function decideDrift(ctx: DecisionContext, target: Target, e: SchemaDriftEvent): void {
  const fields = e.description?.fields.map((f) => f.name) ?? [];
  const summary =
    `The API's catalog for ${e.table} changed` +
    (fields.length > 0
      ? ` (it now lists ${fields.length} field${fields.length === 1 ? '' : 's'})`
      : '') +
    ': check that pipewatch still reads it correctly.';
  const outcome = enqueueAll(ctx, OPERATIONS_RULE, `schema-drift:${e.table}:${e.hash}`, [target], {
    version: 1,
    kind: 'operations',
    state: 'schema-drift',
    rule: OPERATIONS_RULE,
    pipeline: { slug: 'api', name: 'Pipeline Information API' },
    zone: 'UTC',
    operations: {
      event: 'schema-drift',
      summary,
      table: e.table,
      previous_hash: e.previousHash,
      hash: e.hash,
      seen_at: e.seenAt,
    },
  });
  ctx.store.audit.record({
    at: ctx.now,
    rule: OPERATIONS_RULE,
    event: 'schema-drift',
    subject: `schema-drift:${e.table}`,
    notice_id: null,
    decision: outcome.sent.length > 0 ? 'alert' : 'duplicate',
    reason: summary,
  });
}
