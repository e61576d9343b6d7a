/**
 * The webhook body of an outage's operations alert (`outage-schema.ts`), field by field
 * in the contract's order, as `body.ts` builds the others.
 */
import type { AlertPayload } from '../../alerts/payload.js';
import type { UtcIso } from '../../lib/time.js';
import type { WebhookBody } from './body-schema.js';

type OutageBody = Extract<
  WebhookBody,
  { state: 'feed-stale' | 'feed-recovered' | 'target-dead' | 'target-recovered' }
>;

/**
 * The body of outage alert `p`, whose state must be its event; `refuse` makes the error
 * for an alert that cannot make one.
 */
export function outageBody(
  p: AlertPayload,
  kind: 'operations',
  sentAt: UtcIso,
  refuse: (why: string) => Error,
): OutageBody {
  const o = p.operations;
  if (!o || o.event !== p.state) throw refuse(`it has no ${p.state} operations`);
  const pipeline = { slug: p.pipeline.slug, name: p.pipeline.name };
  switch (o.event) {
    case 'feed-stale':
      return {
        version: 1,
        kind,
        state: o.event,
        rule: p.rule,
        pipeline,
        operations: {
          event: o.event,
          summary: o.summary,
          feed: o.feed,
          interval_seconds: o.interval_seconds,
          last_success_at: o.last_success_at,
          last_error_code: o.last_error_code,
          last_error: o.last_error,
          seen_at: o.seen_at,
        },
        sent_at: sentAt,
      };
    case 'feed-recovered':
      return {
        version: 1,
        kind,
        state: o.event,
        rule: p.rule,
        pipeline,
        operations: {
          event: o.event,
          summary: o.summary,
          feed: o.feed,
          last_success_at: o.last_success_at,
          stale_at: o.stale_at,
          seen_at: o.seen_at,
        },
        sent_at: sentAt,
      };
    case 'target-dead':
      return {
        version: 1,
        kind,
        state: o.event,
        rule: p.rule,
        pipeline,
        operations: {
          event: o.event,
          summary: o.summary,
          target: o.target,
          how: o.how,
          reason: o.reason,
          code: o.code,
          seen_at: o.seen_at,
        },
        sent_at: sentAt,
      };
    case 'target-recovered':
      return {
        version: 1,
        kind,
        state: o.event,
        rule: p.rule,
        pipeline,
        operations: {
          event: o.event,
          summary: o.summary,
          target: o.target,
          dead_at: o.dead_at,
          seen_at: o.seen_at,
        },
        sent_at: sentAt,
      };
    default:
      throw refuse(`it has no ${p.state} operations`);
  }
}
