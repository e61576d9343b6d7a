/**
 * The webhook body built field by field from an alert, in the contract's order, so
 * that what receivers get is what `body-schema.ts` says and nothing the alert happens
 * to hold besides (its display zone, or any field added to alerts for other channels).
 * An alert that cannot make a body of its kind (a notice alert without its notice) is
 * refused with one line, for good: resending cannot mend it.
 */
import type { AlertPayload, HeldAlert } from '../../alerts/payload.js';
import type { UtcIso } from '../../lib/time.js';
import { withArticle } from '../../lib/words.js';
import type { StoredNotice } from '../../store/notices.js';
import type { Notice } from '../../upstream/schemas.js';
import { listed } from '../silence.js';
import { DeliveryError, DeliveryErrorCode } from '../types.js';
import type { WebhookBody, WebhookLocation, WebhookNotice } from './body-schema.js';
import { outageBody } from './outage-body.js';
import type { WebhookHeldAlert } from './silence-schema.js';

export type { WebhookBody, WebhookLocation, WebhookNotice } from './body-schema.js';

type Location = NonNullable<AlertPayload['capacity']>['locations'][number];

/** What a receiver gets for alert `p` sent at `sentAt`: its fields, and only the contract's. */
export function webhookBody(p: AlertPayload, sentAt: UtcIso): WebhookBody {
  const pipeline = { slug: p.pipeline.slug, name: p.pipeline.name };
  const rule = p.rule;
  switch (p.state) {
    case 'new':
      return {
        version: 1,
        kind: expectKind(p, 'notice'),
        state: 'new',
        rule,
        pipeline,
        notice: noticeOf(p),
        sent_at: sentAt,
      };
    case 'updated':
      return {
        version: 1,
        kind: expectKind(p, 'notice'),
        state: 'updated',
        rule,
        pipeline,
        notice: noticeOf(p),
        changed: [...(p.changed ?? [])],
        sent_at: sentAt,
      };
    case 'reminder': {
      const notice = noticeOf(p);
      const d = need(p, p.deadline, 'deadline');
      return {
        version: 1,
        kind: expectKind(p, 'deadline'),
        state: 'reminder',
        rule,
        pipeline,
        notice,
        deadline: {
          field: d.field as 'response_at' | 'effective_at' | 'end_at',
          at: d.at,
          before: d.before,
          ...(d.late ? { late: true as const } : {}),
        },
        sent_at: sentAt,
      };
    }
    case 'firing':
    case 'resolved': {
      const c = need(p, p.capacity, 'capacity');
      return {
        version: 1,
        kind: expectKind(p, 'capacity'),
        state: p.state,
        rule,
        pipeline,
        capacity: { cycle: c.cycle, gas_day: c.gas_day, locations: c.locations.map(locationOf) },
        sent_at: sentAt,
      };
    }
    case 'schema-drift': {
      const o = need(
        p,
        p.operations?.event === 'schema-drift' ? p.operations : undefined,
        'operations',
      );
      return {
        version: 1,
        kind: expectKind(p, 'operations'),
        state: 'schema-drift',
        rule,
        pipeline,
        operations: {
          event: 'schema-drift',
          summary: o.summary,
          table: o.table,
          previous_hash: o.previous_hash,
          hash: o.hash,
          seen_at: o.seen_at,
        },
        sent_at: sentAt,
      };
    }
    case 'unknown-pipeline': {
      const o = need(
        p,
        p.operations?.event === 'unknown-pipeline' ? p.operations : undefined,
        'operations',
      );
      return {
        version: 1,
        kind: expectKind(p, 'operations'),
        state: 'unknown-pipeline',
        rule,
        pipeline,
        operations: {
          event: 'unknown-pipeline',
          summary: o.summary,
          rule: o.rule,
          slug: o.slug,
          suggestion: o.suggestion,
          at: o.at,
          seen_at: o.seen_at,
        },
        sent_at: sentAt,
      };
    }
    case 'unknown-location': {
      const o = need(
        p,
        p.operations?.event === 'unknown-location' ? p.operations : undefined,
        'operations',
      );
      return {
        version: 1,
        kind: expectKind(p, 'operations'),
        state: 'unknown-location',
        rule,
        pipeline,
        operations: {
          event: 'unknown-location',
          summary: o.summary,
          rule: o.rule,
          location: o.location,
          pipelines: [...o.pipelines],
          suggestion: o.suggestion,
          at: o.at,
          seen_at: o.seen_at,
        },
        sent_at: sentAt,
      };
    }
    case 'channel-gone': {
      const o = need(
        p,
        p.operations?.event === 'channel-gone' ? p.operations : undefined,
        'operations',
      );
      return {
        version: 1,
        kind: expectKind(p, 'operations'),
        state: 'channel-gone',
        rule,
        pipeline,
        operations: {
          event: 'channel-gone',
          summary: o.summary,
          channel: o.channel,
          reason: o.reason,
          paused: o.paused,
          seen_at: o.seen_at,
        },
        sent_at: sentAt,
      };
    }
    case 'feed-stale':
    case 'feed-recovered':
    case 'target-dead':
    case 'target-recovered':
      return outageBody(p, expectKind(p, 'operations'), sentAt, (what) => refused(p, what));
    case 'ended': {
      const s = need(p, p.silence, 'silence');
      return {
        version: 1,
        kind: expectKind(p, 'silence'),
        state: 'ended',
        rule,
        pipeline,
        silence: {
          id: s.id,
          matchers: s.matchers,
          started_at: s.started_at,
          ended_at: s.ended_at,
          ended_by: s.ended_by,
          held: s.held,
          alerts: listed(s).map(heldOf),
        },
        sent_at: sentAt,
      };
    }
  }
}

function heldOf(h: HeldAlert): WebhookHeldAlert {
  return {
    rule: h.rule,
    kind: h.kind,
    state: h.state,
    pipeline: h.pipeline,
    title: h.title,
    notice_id: h.notice_id,
    url: h.url,
    at: h.at,
  };
}

/** The stored fields a reminder's notice carries besides the API's. */
const STORED = [
  'content_hash',
  'version',
  'first_seen_at',
  'last_seen_at',
  'last_changed_at',
  'baseline',
] as const;

function noticeOf(p: AlertPayload): WebhookNotice {
  const n: Notice & Partial<Pick<StoredNotice, (typeof STORED)[number]>> = need(
    p,
    p.notice,
    'notice',
  );
  const out: WebhookNotice = {
    id: n.id,
    pipeline_id: n.pipeline_id,
    pipeline_name: n.pipeline_name,
    pipeline_slug: n.pipeline_slug,
    pipeline_url: n.pipeline_url,
    subject: n.subject,
    identifier: n.identifier,
    url: n.url,
    category: n.category,
    type: n.type,
    status: n.status,
    notice: n.notice,
    html: n.html,
    mobile: n.mobile,
    posted_at: n.posted_at,
    effective_at: n.effective_at,
    end_at: n.end_at,
    response_at: n.response_at,
    service_created_at: n.service_created_at,
    service_updated_at: n.service_updated_at,
  };
  for (const field of STORED) {
    if (n[field] !== undefined) Object.assign(out, { [field]: n[field] });
  }
  return out;
}

function locationOf(l: Location): WebhookLocation {
  return {
    id: l.id,
    location: l.location,
    identifier: l.identifier,
    flow: l.flow,
    qti: l.qti,
    zone: l.zone,
    dc: l.dc,
    opc: l.opc,
    tsq: l.tsq,
    oac: l.oac,
    it: l.it,
    all: l.all,
    reason: l.reason,
    service_created_at: l.service_created_at,
    service_updated_at: l.service_updated_at,
    threshold: l.threshold,
    clear_above: l.clear_above,
    unit: l.unit,
    ...(l.repeat ? { repeat: true as const } : {}),
  };
}

function expectKind<K extends AlertPayload['kind']>(p: AlertPayload, kind: K): K {
  if (p.kind !== kind) throw refused(p, `state ${p.state} belongs to ${kind} alerts`);
  return kind;
}

function need<T>(p: AlertPayload, value: T | undefined, what: string): T {
  if (value === undefined || value === null) throw refused(p, `it has no ${what}`);
  return value;
}

function refused(p: AlertPayload, why: string): DeliveryError {
  return new DeliveryError(
    `webhook: cannot render ${withArticle(`${p.kind}/${p.state}`)} alert: ${why}`,
    {
      code: DeliveryErrorCode.Rejected,
      permanent: true,
    },
  );
}
