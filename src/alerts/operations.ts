/**
 * Operational alerts, for whoever runs pipewatch rather than for schedulers, sent to
 * `PIPEWATCH_OPS_TARGET`: the API's catalog changed (schema drift), so fields may have
 * been added, removed or retyped (once per table and new catalog hash); a rule names a
 * pipeline the API does not track, so it can never fire there (once per rule and slug).
 */

import type { Target } from '../domain/targets.js';
import type { SchemaDriftEvent } from '../ingest/events.js';
import type { UnknownPipeline } from '../rules/pipeline-check.js';
import { formatProblem } from '../rules/types.js';
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

/** Queues one alert that a chat channel went away and its subscriptions paused. */
export function decideChannelGone(
  ctx: DecisionContext,
  target: Target,
  gone: { channel: string; reason: string; paused: number },
): void {
  const n = gone.paused;
  const summary = `${gone.channel} went away (${gone.reason}): its ${n} subscription${n === 1 ? '' : 's'} paused; a subscribe there resumes them, or \`pipewatch subs rm\` removes them.`;
  const outcome = enqueueAll(
    ctx,
    OPERATIONS_RULE,
    `channel-gone:${gone.channel}:${ctx.now}`,
    [target],
    {
      version: 1,
      kind: 'operations',
      state: 'channel-gone',
      rule: OPERATIONS_RULE,
      pipeline: { slug: 'chat', name: 'pipewatch chat' },
      zone: 'UTC',
      operations: { event: 'channel-gone', summary, ...gone, seen_at: ctx.now },
    },
  );
  ctx.store.audit.record({
    at: ctx.now,
    rule: OPERATIONS_RULE,
    event: 'channel-gone',
    subject: `channel-gone:${gone.channel}`,
    notice_id: null,
    decision: outcome.sent.length > 0 ? 'alert' : 'duplicate',
    reason: summary,
  });
}

/** Queues an unknown-pipeline alert to the operations target. Call inside a transaction. */
export function decideUnknownPipeline(
  ctx: DecisionContext,
  target: Target,
  u: UnknownPipeline,
): void {
  const at = formatProblem({ ...u, message: '' }).slice(0, -2);
  const summary =
    `Rule '${u.rule}' names pipeline '${u.slug}', which the API does not track, so it never fires there` +
    (u.suggestion ? `: did you mean '${u.suggestion}'? (${at})` : ` (${at})`);
  const outcome = enqueueAll(
    ctx,
    OPERATIONS_RULE,
    `unknown-pipeline:${u.rule}:${u.slug}`,
    [target],
    {
      version: 1,
      kind: 'operations',
      state: 'unknown-pipeline',
      rule: OPERATIONS_RULE,
      pipeline: { slug: 'rules', name: 'pipewatch rules' },
      zone: 'UTC',
      operations: {
        event: 'unknown-pipeline',
        summary,
        rule: u.rule,
        slug: u.slug,
        suggestion: u.suggestion ?? null,
        at,
        seen_at: ctx.now,
      },
    },
  );
  if (outcome.sent.length === 0) return;
  ctx.store.audit.record({
    at: ctx.now,
    rule: OPERATIONS_RULE,
    event: 'unknown-pipeline',
    subject: `unknown-pipeline:${u.rule}:${u.slug}`,
    notice_id: null,
    decision: 'alert',
    reason: summary,
  });
}
