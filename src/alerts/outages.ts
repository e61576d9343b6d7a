/**
 * Outages as operations alerts, for whoever runs pipewatch: a feed that has not succeeded
 * for longer than three of its intervals (pipewatch cannot see that part of the API), and
 * a delivery target whose alerts do not get through (one failed for good, or waits past
 * `PIPEWATCH_DELIVERY_STUCK_AFTER`). Each outage is recorded while it lasts (`outages`),
 * so its beginning is told once and its end once, at the first success after, however
 * often the daemon restarts in between. An outage of the operations target itself is
 * recorded but not sent through it (it cannot carry the news of its own failure); its end
 * is, since it works again.
 */

import type { Target } from '../domain/targets.js';
import { targetId, targetKey, targetLabel } from '../domain/targets.js';
import { HEALTH_INTERVALS } from '../ingest/health.js';
import { formatTimeLeft } from '../lib/duration.js';
import type { UtcIso } from '../lib/time.js';
import type { Outage } from '../store/outages.js';
import type { FeedState } from '../store/sync-state.js';
import type { DecisionContext } from './context.js';
import { queueOperation } from './operations.js';
import type { AlertPayload } from './payload.js';

/** A feed is stale after this many of its intervals without a success (as `/healthz` says). */
export const STALE_INTERVALS = HEALTH_INTERVALS;

/** What began or ended, for the log. */
export interface OutageChange {
  /** `feed:notices`, `target:slack:#ops`. */
  subject: string;
  /** What is out, as it may be shown: `feed notices`, `target webhook:https://host/…`. */
  shown: string;
  began: boolean;
  summary: string;
  /** Who was told: the operations target's label; undefined: nobody (why in `untold`). */
  told: string | undefined;
  untold?: 'no-ops-target' | 'is-ops-target';
}

/** What a stale feed stops pipewatch from doing. */
const CONSEQUENCES: Record<string, string> = {
  notices: 'new notices are not seen and do not alert',
  capacity: 'capacity is not fetched and OAC alerts do not fire',
  pipelines: 'new pipelines are not picked up',
  catalog: "changes to the API's schema are not seen",
  alerts: 'reminders and silence summaries are not sent',
  retention: 'old data is not pruned',
};

/** What to check for the usual errors of a feed, by code. */
const ADVICE: Record<string, string> = {
  UPSTREAM_AUTH: 'the API refuses the credentials: check PIPEWATCH_API_USER and PIPEWATCH_API_KEY',
  UPSTREAM_SCHEMA:
    "the API's answers no longer read as pipewatch expects: look for a schema-drift alert, and for a newer pipewatch",
  UPSTREAM_MALFORMED_BODY: "the API's answers are not valid JSON",
  UPSTREAM_SERVER: 'the API is failing',
  UPSTREAM_UNAVAILABLE: 'the API is unavailable',
  UPSTREAM_NETWORK: 'the API cannot be reached from here',
  UPSTREAM_TIMEOUT: 'the API does not answer in time (PIPEWATCH_API_TIMEOUT)',
  UPSTREAM_RATE_LIMITED: 'the API is limiting requests (PIPEWATCH_API_RATE)',
};

/** The pipeline part of an outage's alerts: the API for its feeds, pipewatch for the rest. */
const API = { slug: 'api', name: 'Pipeline Information API' };
const PIPEWATCH = { slug: 'pipewatch', name: 'pipewatch' };
const API_FEEDS = new Set(['notices', 'capacity', 'pipelines', 'catalog']);

/** A feed's outage subject. */
export const feedSubject = (feed: string) => `feed:${feed}`;

/** A target's outage subject. */
export const targetSubject = (target: Target) => `target:${targetKey(target)}`;

/**
 * Opens the outage of a feed that has gone more than `STALE_INTERVALS` of its interval
 * without a success (the caller judges that, and from when), and queues its alert.
 * Call inside a transaction. Undefined when the outage was already open.
 */
export async function feedStale(
  ctx: DecisionContext,
  ops: Target | undefined,
  f: {
    feed: string;
    intervalMs: number;
    state: FeedState | undefined;
    /** Since when it has had no success: its last success, or the daemon's start. */
    since: UtcIso;
    /** Scrubs the error text of secrets, bounding its length. */
    clean: (text: string) => string;
  },
): Promise<OutageChange | undefined> {
  const lastSuccess = f.state?.last_success_at ?? null;
  // An error from before the last success says nothing of why it fails now.
  const errorAt = f.state?.last_error_at ?? null;
  const current = errorAt !== null && (lastSuccess === null || errorAt >= lastSuccess);
  const code = current ? (f.state?.last_error_code ?? null) : null;
  const error = current && f.state?.last_error ? f.clean(f.state.last_error) : null;
  const advice = code ? ADVICE[code] : undefined;
  const quiet = formatTimeLeft(Date.parse(ctx.now) - Date.parse(f.since));
  const summary =
    `The ${f.feed} feed has had no success ${f.since === lastSuccess ? `for ${quiet}` : `since pipewatch started ${quiet} ago`} ` +
    `(over ${STALE_INTERVALS} of its ${formatTimeLeft(f.intervalMs)} intervals): ` +
    `${CONSEQUENCES[f.feed] ?? 'its work is not done'}.${advice ? ` ${capitalised(advice)}.` : ''}`;
  const outage: Outage = {
    subject: feedSubject(f.feed),
    since: lastSuccess,
    started_at: ctx.now,
    reason: summary,
  };
  if (!(await ctx.store.outages.begin(outage))) return undefined;
  return tell(ctx, ops, outage, true, {
    subject: `feed-stale:${f.feed}`,
    pipeline: API_FEEDS.has(f.feed) ? API : PIPEWATCH,
    operation: {
      event: 'feed-stale',
      summary,
      feed: f.feed,
      interval_seconds: Math.round(f.intervalMs / 1000),
      last_success_at: lastSuccess,
      last_error_code: code,
      last_error: error,
      seen_at: ctx.now,
    },
  });
}

/**
 * Closes the outage of a feed that succeeded at `ctx.now`, if one was open, and queues
 * its alert. Call inside a transaction.
 */
export async function feedRecovered(
  ctx: DecisionContext,
  ops: Target | undefined,
  feed: string,
): Promise<OutageChange | undefined> {
  const outage = await ctx.store.outages.end(feedSubject(feed));
  if (!outage) return undefined;
  const after = (from: string) => formatTimeLeft(Date.parse(ctx.now) - Date.parse(from));
  const summary =
    outage.since === null
      ? `The ${feed} feed works again, ${after(outage.started_at)} after it was found stale.`
      : `The ${feed} feed works again, after ${after(outage.since)} without a success.`;
  return tell(ctx, ops, outage, false, {
    subject: `feed-recovered:${feed}`,
    pipeline: API_FEEDS.has(feed) ? API : PIPEWATCH,
    operation: {
      event: 'feed-recovered',
      summary,
      feed,
      last_success_at: outage.since,
      stale_at: outage.started_at,
      seen_at: ctx.now,
    },
  });
}

/**
 * Opens the outage of a target whose delivery failed for good (`dead`) or has waited
 * too long (`stuck`), and queues its alert, unless the target is the operations target
 * itself. Call inside a transaction. Undefined when the outage was already open.
 */
export async function targetDead(
  ctx: DecisionContext,
  ops: Target | undefined,
  d: {
    target: Target;
    how: 'dead' | 'stuck';
    /** Why, secrets already removed. */
    reason: string;
    code: string | null;
    /** For `stuck`: how long its oldest alert has waited, and the limit. */
    waitedMs?: number;
    limitMs?: number;
  },
): Promise<OutageChange | undefined> {
  const label = targetLabel(d.target);
  const what =
    d.how === 'dead'
      ? 'an alert to it failed for good'
      : `an alert to it has waited ${formatTimeLeft(d.waitedMs ?? 0)} (more than ${formatTimeLeft(d.limitMs ?? 0)})`;
  const summary = `Alerts to ${label} are not getting through: ${what}. \`pipewatch status\` lists them.`;
  const outage: Outage = {
    subject: targetSubject(d.target),
    since: null,
    started_at: ctx.now,
    reason: summary,
  };
  if (!(await ctx.store.outages.begin(outage))) return undefined;
  return tell(ctx, ops, outage, true, {
    subject: `target-dead:${targetId(d.target)}`,
    pipeline: { slug: 'delivery', name: 'pipewatch delivery' },
    operation: {
      event: 'target-dead',
      summary,
      target: label,
      how: d.how,
      reason: d.reason,
      code: d.code,
      seen_at: ctx.now,
    },
  });
}

/**
 * Closes the outage of a target that just took a delivery, if one was open, and queues
 * its alert (to the operations target, even when that is the one that recovered). Call
 * inside a transaction.
 */
export async function targetRecovered(
  ctx: DecisionContext,
  ops: Target | undefined,
  target: Target,
): Promise<OutageChange | undefined> {
  const outage = await ctx.store.outages.end(targetSubject(target));
  if (!outage) return undefined;
  const label = targetLabel(target);
  const down = formatTimeLeft(Date.parse(ctx.now) - Date.parse(outage.started_at));
  const summary = `Alerts to ${label} get through again, after ${down}; those that failed for good meanwhile are not sent again.`;
  return tell(ctx, ops, outage, false, {
    subject: `target-recovered:${targetId(target)}`,
    pipeline: { slug: 'delivery', name: 'pipewatch delivery' },
    operation: {
      event: 'target-recovered',
      summary,
      target: label,
      dead_at: outage.started_at,
      seen_at: ctx.now,
    },
  });
}

/** Queues an outage's alert to the operations target, where it can go; says who heard. */
async function tell(
  ctx: DecisionContext,
  ops: Target | undefined,
  outage: Outage,
  began: boolean,
  alert: {
    /** The alert's outbox subject: the audit trail's subject and the outage's start. */
    subject: string;
    pipeline: AlertPayload['pipeline'];
    operation: NonNullable<AlertPayload['operations']>;
  },
): Promise<OutageChange> {
  const o = alert.operation as { feed?: string; target?: string };
  const shown = o.feed !== undefined ? `feed ${o.feed}` : `target ${o.target}`;
  const change = { subject: outage.subject, shown, began, summary: alert.operation.summary };
  if (!ops) return { ...change, told: undefined, untold: 'no-ops-target' };
  // A target that fails cannot carry the news of its own failure; its recovery it can.
  if (began && outage.subject === targetSubject(ops))
    return { ...change, told: undefined, untold: 'is-ops-target' };
  await queueOperation(ctx, ops, {
    ...alert,
    key: `${alert.subject}:${outage.started_at}`,
  });
  return { ...change, told: targetLabel(ops) };
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
