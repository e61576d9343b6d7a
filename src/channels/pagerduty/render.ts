/**
 * An alert as PagerDuty Events API v2 events (`POST /v2/enqueue`), pure. What opens an
 * incident and what closes it is decided here, from the alert alone, by dedup key:
 *  - a notice triggers `pipewatch/notice/<pipeline>/<notice id>`, the same key for every
 *    version of the notice, so an update re-triggers the same incident; a notice whose
 *    status ends it (Terminate, Complete, Lifted, Cancelled, Withdrawn), or whose `end_at`
 *    has passed, resolves it, and a notice that supersedes a stored one resolves the one
 *    it replaces;
 *  - a deadline reminder re-triggers its notice's incident;
 *  - low OAC triggers `pipewatch/capacity/<rule>/<pipeline>/<location>` per location, and
 *    `OAC recovered` resolves the same keys;
 *  - a stale feed or a dead target triggers, its recovery resolves.
 * Text is plain in PagerDuty, but upstream text still loses its control characters, and
 * every value is bounded so that an event stays far below PagerDuty's 512 KB.
 */
import { createHash } from 'node:crypto';
import type { AlertPayload } from '../../alerts/payload.js';
import { isTerminal } from '../../alerts/reminders.js';
import { isOpenEnded } from '../../domain/open-ended.js';
import { BIDI } from '../../lib/terminal.js';
import type { Notice } from '../../upstream/schemas.js';
import { clip, headline, noticeText, oneLine, shortPipelineName, title, webUrl } from '../text.js';
import type { Alert } from '../types.js';

/** PagerDuty's own Events API. */
export const PAGERDUTY_API_URL = 'https://events.pagerduty.com';

/** The severities PagerDuty takes, most urgent first. */
export type PagerDutySeverity = 'critical' | 'error' | 'warning' | 'info';

/** One Events API v2 event. */
export interface PagerDutyEvent {
  routing_key: string;
  event_action: 'trigger' | 'resolve';
  dedup_key: string;
  payload?: {
    summary: string;
    source: string;
    severity: PagerDutySeverity;
    timestamp: string;
    component?: string;
    group?: string;
    class?: string;
    custom_details: Record<string, unknown>;
  };
  links?: Array<{ href: string; text: string }>;
  client?: string;
}

/** PagerDuty's limits: the summary's characters, the dedup key's, the whole event's bytes. */
export const SUMMARY_MAX = 1024;
const DEDUP_KEY_MAX = 255;
export const EVENT_MAX_BYTES = 512 * 1024;
/** What pipewatch lets one event reach, well below PagerDuty's limit. */
const EVENT_BUDGET = 64 * 1024;
/** Characters of one detail, and of the notice's text. */
const VALUE_MAX = 1_000;
const TEXT_MAX = 8_000;
/** Items of a list among the details. */
const LIST_MAX = 50;

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Upstream text as a detail: control characters but line breaks and tabs removed, bounded. */
function plain(text: string, max = VALUE_MAX): string {
  return clip(text.replace(BIDI, '').replace(CONTROL_BUT_LINES, '').trim(), max);
}

/** A dedup key of PagerDuty's length whatever the names in it: a long one is hashed. */
function dedupKey(kind: string, ...parts: string[]): string {
  const key = `pipewatch/${kind}/${parts.map((p) => oneLine(p).replace(/\//g, '%2F')).join('/')}`;
  if (key.length <= DEDUP_KEY_MAX) return key;
  return `pipewatch/${kind}/${createHash('sha256').update(parts.join('\n')).digest('hex')}`;
}

/** The incident of a notice, the same for every version of it. */
export function noticeDedupKey(pipeline: string, noticeId: number | string): string {
  return dedupKey('notice', pipeline, String(noticeId));
}

/** The incident of one location under one capacity rule, for an episode of low OAC. */
export function capacityDedupKey(rule: string, pipeline: string, location: string): string {
  return dedupKey('capacity', rule, pipeline, location);
}

/**
 * How urgent a notice is, from its type (free text, `Force Maj`, `OFO`): force majeure,
 * operational flow orders, curtailments and emergencies are `critical`, since gas is
 * already not flowing as scheduled or penalties apply; capacity constraints `error`,
 * since they cut scheduled quantities at named points for the cycles ahead and call for
 * renominating before the next deadline, but are routine on many pipelines and not an
 * emergency; maintenance and planned outages `info`, being announced ahead; any other
 * critical notice `warning`.
 */
export function noticeSeverity(type: string): PagerDutySeverity {
  const t = type.toLowerCase();
  if (/force\s*maj|\bfm\b|operational flow order|\bofo\b|curtail|emergenc/.test(t))
    return 'critical';
  if (/constraint|critical period/.test(t)) return 'error';
  if (/maint|planned|plnd/.test(t)) return 'info';
  return 'warning';
}

/** The notice facts the Slack message shows, as details. */
function noticeDetails(p: AlertPayload, n: Notice): Record<string, unknown> {
  const details: Record<string, unknown> = {
    pipeline: plain(p.pipeline.name || p.pipeline.slug),
    notice_id: plain(n.identifier || String(n.id)),
    type: plain(n.type),
    status: plain(n.status),
    subject: plain(n.subject),
    posted_at: n.posted_at,
    effective_at: n.effective_at,
    end_at: n.end_at,
    response_at: n.response_at,
    url: n.url ? (webUrl(n.url) ?? null) : null,
    rule: plain(p.rule),
    alert: p.state,
  };
  if (p.escalation) details.escalation = `not acknowledged within ${p.escalation.after}`;
  if (p.changed) details.changed = p.changed.slice(0, LIST_MAX);
  if (p.supersedes) details.supersedes = plain(p.supersedes.identifier || String(p.supersedes.id));
  if (p.deadline)
    details.deadline = { field: p.deadline.field, at: p.deadline.at, before: p.deadline.before };
  details.text = plain(noticeText(n), TEXT_MAX);
  return details;
}

/** The common part of a trigger. */
function trigger(
  routingKey: string,
  dedup: string,
  p: AlertPayload,
  severity: PagerDutySeverity,
  timestamp: string,
  rest: {
    summary?: string;
    component?: string;
    class: string;
    details: Record<string, unknown>;
    link?: string | null;
  },
): PagerDutyEvent {
  const link = rest.link ? webUrl(rest.link) : undefined;
  const event: PagerDutyEvent = {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedup,
    payload: {
      summary: clip(oneLine(rest.summary ?? title(p)), SUMMARY_MAX),
      source: clip(oneLine(p.pipeline.name || p.pipeline.slug) || 'pipewatch', VALUE_MAX),
      severity,
      timestamp,
      ...(rest.component ? { component: clip(oneLine(rest.component), VALUE_MAX) } : {}),
      group: clip(oneLine(p.pipeline.slug), VALUE_MAX),
      class: rest.class,
      custom_details: rest.details,
    },
    client: 'pipewatch',
  };
  if (link) event.links = [{ href: link, text: 'Notice on the pipeline’s site' }];
  return bounded(event);
}

/** The event within the budget: the notice's text goes first, then every detail. */
function bounded(event: PagerDutyEvent): PagerDutyEvent {
  const size = () => Buffer.byteLength(JSON.stringify(event));
  const details = event.payload?.custom_details;
  if (!details || size() <= EVENT_BUDGET) return event;
  delete details.text;
  if (size() <= EVENT_BUDGET) return event;
  for (const key of Object.keys(details)) delete details[key];
  details.note = 'details left out: too large';
  return event;
}

function resolve(routingKey: string, dedup: string): PagerDutyEvent {
  return { routing_key: routingKey, event_action: 'resolve', dedup_key: dedup };
}

/**
 * Whether the notice's end (`end_at`, not a placeholder for "until further notice") has
 * passed at `now`: nothing is left to page about, and an alert of it resolves its
 * incident (`alerts/notice-ends.ts` queues one as the end passes).
 */
function hasEnded(n: Notice, now: string): boolean {
  if (!n.end_at || isOpenEnded(n)) return false;
  return Date.parse(n.end_at) <= Date.parse(now);
}

/** What a notice alert (or a reminder of it) does to its incident, and to the one it replaces. */
function noticeEvents(
  routingKey: string,
  p: AlertPayload,
  n: Notice,
  now: string,
): PagerDutyEvent[] {
  const slug = p.pipeline.slug;
  const key = noticeDedupKey(slug, n.id);
  const replaced = p.supersedes ? [resolve(routingKey, noticeDedupKey(slug, p.supersedes.id))] : [];
  if (p.kind === 'notice' && (isTerminal(n) || hasEnded(n, now) || p.escalation?.acknowledged))
    return [...replaced, resolve(routingKey, key)];
  const severity = p.kind === 'deadline' ? 'warning' : noticeSeverity(n.type);
  const timestamp = n.service_updated_at ?? n.posted_at ?? now;
  const event = trigger(routingKey, key, p, severity, timestamp, {
    class: plain(n.type, 100) || 'notice',
    details: noticeDetails(p, n),
    link: n.url,
  });
  return [...replaced, event];
}

/** Low OAC: one incident per location; `OAC recovered` resolves each. */
function capacityEvents(routingKey: string, p: AlertPayload, now: string): PagerDutyEvent[] {
  const c = p.capacity;
  if (!c) return [];
  return c.locations.slice(0, LIST_MAX).map((l) => {
    const key = capacityDedupKey(p.rule, p.pipeline.slug, l.identifier || l.location);
    if (p.state === 'resolved') return resolve(routingKey, key);
    const where = oneLine(l.location) || oneLine(l.identifier);
    return trigger(routingKey, key, p, 'error', l.service_updated_at ?? now, {
      summary: `[${shortPipelineName(p)}] Low OAC at ${where} — ${c.cycle} cycle, gas day ${c.gas_day}`,
      component: where,
      class: 'capacity',
      details: {
        pipeline: plain(p.pipeline.name || p.pipeline.slug),
        location: plain(l.location),
        identifier: plain(l.identifier),
        zone: plain(l.zone),
        flow: plain(l.flow),
        cycle: c.cycle,
        gas_day: c.gas_day,
        oac: l.oac,
        opc: l.opc,
        tsq: l.tsq,
        dc: l.dc,
        threshold: l.threshold,
        clear_above: l.clear_above,
        unit: l.unit,
        ...(l.repeat ? { repeat: true } : {}),
        ...(l.reason ? { reason: plain(l.reason) } : {}),
        rule: plain(p.rule),
      },
    });
  });
}

/** pipewatch's own outages open an incident and close it when they end; the rest inform. */
function operationsEvents(routingKey: string, p: AlertPayload, now: string): PagerDutyEvent[] {
  const o = p.operations;
  if (!o) return [];
  const details = Object.fromEntries(
    Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? plain(v) : v]),
  );
  const raise = (key: string, severity: PagerDutySeverity) => [
    trigger(routingKey, key, p, severity, now, {
      summary: `[pipewatch] ${headline(p)}`,
      class: o.event,
      details,
    }),
  ];
  switch (o.event) {
    case 'feed-stale':
      return raise(dedupKey('operations', 'feed', o.feed), 'error');
    case 'feed-recovered':
      return [resolve(routingKey, dedupKey('operations', 'feed', o.feed))];
    case 'target-dead':
      return raise(dedupKey('operations', 'target', o.target), 'error');
    case 'target-recovered':
      return [resolve(routingKey, dedupKey('operations', 'target', o.target))];
    default:
      return raise(dedupKey('operations', o.event, o.summary), 'warning');
  }
}

/**
 * The events one alert sends to one integration, in order: usually one, one per
 * location for capacity, and a resolve of the notice replaced before a notice that
 * supersedes one.
 */
export function renderPagerDutyEvents(
  alert: Alert,
  routingKey: string,
  now: string,
): PagerDutyEvent[] {
  const p = alert.payload;
  switch (p.kind) {
    case 'notice':
    case 'deadline':
      return p.notice ? noticeEvents(routingKey, p, p.notice, now) : [];
    case 'capacity':
      return capacityEvents(routingKey, p, now);
    case 'operations':
      return operationsEvents(routingKey, p, now);
    case 'silence': {
      const s = p.silence;
      if (!s) return [];
      return [
        trigger(routingKey, dedupKey('silence', String(s.id)), p, 'info', now, {
          summary: `[pipewatch] ${headline(p)}`,
          class: 'silence',
          details: {
            matchers: plain(s.matchers),
            ended_by: s.ended_by,
            held: s.held,
            alerts: s.alerts.slice(0, 20).map((a) => `${a.at} ${plain(a.title, 200)}`),
          },
        }),
      ];
    }
  }
}

/** What an integration would receive, for a terminal: each event as indented JSON, its key hidden. */
export function previewPagerDuty(alerts: readonly Alert[], now: string): string {
  return alerts
    .flatMap((a) => renderPagerDutyEvents(a, '[integration key]', now))
    .map((e) => JSON.stringify(e, null, 2))
    .join('\n\n');
}
