/**
 * Operational alerts, for whoever runs pipewatch rather than for schedulers, sent to
 * `PIPEWATCH_OPS_TARGET`: the API's catalog changed (schema drift), so fields may have
 * been added, removed or retyped (once per table and new catalog hash); a rule names a
 * pipeline the API does not track, so it can never fire there (once per rule and slug, and
 * the same for a slug of `PIPEWATCH_PIPELINES`), or a location no capacity of its
 * pipelines has (once per rule and location);
 * a chat channel went away and its subscriptions paused (once per pause).
 */

import type { Target } from '../domain/targets.js';
import type { SchemaDriftEvent } from '../ingest/events.js';
import type { UtcIso } from '../lib/time.js';
import { pipelinesText, type UnknownLocation } from '../rules/location-check.js';
import type { UnknownPipeline, UnknownSettingPipeline } from '../rules/pipeline-check.js';
import { formatProblem } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import { alertKey, type DecisionContext, enqueueAll } from './context.js';
import type { AlertPayload } from './payload.js';

/** The rule name operational alerts carry. */
export const OPERATIONS_RULE = 'pipewatch-operations';

type Operation = NonNullable<AlertPayload['operations']>;

/**
 * Queues one operational alert under `key` and writes its decision to the audit trail
 * under `subject`; a repeat of the same key is written as a duplicate unless
 * `quietRepeats` says to leave it out. Outages (`outages.ts`) queue theirs through it too.
 */
export async function queueOperation(
  ctx: DecisionContext,
  target: Target,
  o: QueuedOperation,
): Promise<void> {
  const outcome = await enqueueAll(ctx, OPERATIONS_RULE, o.key, [target], operationPayload(o));
  const sent = outcome.sent.length > 0;
  if (!sent && o.quietRepeats) return;
  await ctx.store.audit.record(operationAudit(o, ctx.now, sent));
}

/** What `queueOperation` queues. */
interface QueuedOperation {
  key: string;
  subject: string;
  pipeline: AlertPayload['pipeline'];
  operation: Operation;
  quietRepeats?: boolean;
}

function operationPayload(o: QueuedOperation): AlertPayload {
  return {
    version: 1,
    kind: 'operations',
    state: o.operation.event,
    rule: OPERATIONS_RULE,
    pipeline: o.pipeline,
    zone: 'UTC',
    operations: o.operation,
  };
}

function operationAudit(o: QueuedOperation, at: UtcIso, sent: boolean) {
  return {
    at,
    rule: OPERATIONS_RULE,
    event: o.operation.event,
    subject: o.subject,
    notice_id: null,
    decision: sent ? ('alert' as const) : ('duplicate' as const),
    reason: o.operation.summary,
  };
}

/**
 * `queueOperation` on the asynchronous store, for chat; call inside a transaction. No
 * silence holds an operations alert back (`enqueueAll`), so only a key held before by
 * one, or decided before, keeps it from the outbox.
 */
async function queueOperationAsync(
  store: AsyncStore,
  now: UtcIso,
  target: Target,
  o: QueuedOperation,
): Promise<void> {
  const held =
    (await store.silences.anyHeld()) &&
    (await store.silences.isHeld(alertKey(OPERATIONS_RULE, o.key, target)));
  const sent =
    !held && (await store.outbox.enqueue(o.key, OPERATIONS_RULE, target, operationPayload(o), now));
  if (!sent && o.quietRepeats) return;
  await store.audit.record(operationAudit(o, now, sent));
}

/** Queues a schema-drift alert to the operations target. Call inside the event's transaction. */
export async function decideDrift(
  ctx: DecisionContext,
  target: Target,
  e: SchemaDriftEvent,
): Promise<void> {
  const fields = e.description?.fields.map((f) => f.name) ?? [];
  const summary =
    `The API's catalog for ${e.table} changed` +
    (fields.length > 0
      ? ` (it now lists ${fields.length} field${fields.length === 1 ? '' : 's'})`
      : '') +
    ': check that pipewatch still reads it correctly.';
  await queueOperation(ctx, target, {
    key: `schema-drift:${e.table}:${e.hash}`,
    subject: `schema-drift:${e.table}`,
    pipeline: { slug: 'api', name: 'Pipeline Information API' },
    operation: {
      event: 'schema-drift',
      summary,
      table: e.table,
      previous_hash: e.previousHash,
      hash: e.hash,
      seen_at: e.seenAt,
    },
  });
}

/**
 * Queues one alert that a chat channel went away and its subscriptions paused; call
 * inside the transaction that paused them.
 */
export function decideChannelGone(
  ctx: { store: AsyncStore; now: UtcIso },
  target: Target,
  gone: { channel: string; reason: string; paused: number },
): Promise<void> {
  const n = gone.paused;
  const summary = `${gone.channel} went away (${gone.reason}): its ${n} subscription${n === 1 ? '' : 's'} paused; a subscribe there resumes them, or \`pipewatch subs rm\` removes them.`;
  return queueOperationAsync(ctx.store, ctx.now, target, {
    key: `channel-gone:${gone.channel}:${ctx.now}`,
    subject: `channel-gone:${gone.channel}`,
    pipeline: { slug: 'chat', name: 'pipewatch chat' },
    operation: { event: 'channel-gone', summary, ...gone, seen_at: ctx.now },
  });
}

/**
 * Queues an unknown-pipeline alert to the operations target, for a rule's slug or a
 * setting's (`PIPEWATCH_PIPELINES`, named as its rule and its place). Call inside a transaction.
 */
export async function decideUnknownPipeline(
  ctx: DecisionContext,
  target: Target,
  u: UnknownPipeline | UnknownSettingPipeline,
): Promise<void> {
  const setting = 'setting' in u;
  const rule = setting ? u.setting : u.rule;
  const at = setting ? u.setting : formatProblem({ ...u, message: '' }).slice(0, -2);
  const summary =
    `${setting ? rule : `Rule '${rule}'`} names pipeline '${u.slug}', which the API does not track, so ${setting ? 'pipewatch leaves it out' : 'it never fires there'}` +
    (u.suggestion ? `: did you mean '${u.suggestion}'? (${at})` : ` (${at})`);
  const subject = `unknown-pipeline:${rule}:${u.slug}`;
  // Checked at every pipeline list read: only the first time is worth a line.
  await queueOperation(ctx, target, {
    key: subject,
    subject,
    pipeline: { slug: 'rules', name: 'pipewatch rules' },
    quietRepeats: true,
    operation: {
      event: 'unknown-pipeline',
      summary,
      rule,
      slug: u.slug,
      suggestion: u.suggestion ?? null,
      at,
      seen_at: ctx.now,
    },
  });
}

/** Queues an unknown-location alert to the operations target. Call inside a transaction. */
export async function decideUnknownLocation(
  ctx: DecisionContext,
  target: Target,
  u: UnknownLocation,
): Promise<void> {
  const at = formatProblem({ ...u, message: '' }).slice(0, -2);
  const summary =
    `Rule '${u.rule}' watches location '${u.location}', which no location of ${pipelinesText(u.pipelines)} matches, so it never fires there` +
    (u.suggestion ? `: did you mean '${u.suggestion}'? (${at})` : ` (${at})`);
  const subject = `unknown-location:${u.rule}:${u.location.toLowerCase()}`;
  await queueOperation(ctx, target, {
    key: subject,
    subject,
    pipeline: { slug: 'rules', name: 'pipewatch rules' },
    quietRepeats: true,
    operation: {
      event: 'unknown-location',
      summary,
      rule: u.rule,
      location: u.location,
      pipelines: u.pipelines,
      suggestion: u.suggestion ?? null,
      at,
      seen_at: ctx.now,
    },
  });
}
