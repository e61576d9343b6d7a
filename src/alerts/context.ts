/**
 * What every decision needs: the store (inside the ingest transaction, awaited), the time, the
 * alert age, and how to build the common parts of a payload.
 */

import type { Target } from '../domain/targets.js';
import { targetKey, targetLabel } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import { deliveryKey } from '../store/outbox.js';
import type { SilenceRow } from '../store/silences.js';
import type { Notice } from '../upstream/schemas.js';
import type { AlertPayload } from './payload.js';
import { type SilenceCache, SilenceIndex } from './silence-index.js';
import { alertLabels } from './silence-matchers.js';
import { heldAlert, mutedReason } from './silences.js';
import type { RecentSuperseders } from './superseded.js';

export interface DecisionContext {
  store: AsyncStore;
  now: UtcIso;
  /** The silences in force by what they match, read when first needed (`silence-index.ts`). */
  silences?: SilenceIndex;
  /** Where the engine keeps them from one context to the next; without it, each context reads them. */
  silenceCache?: SilenceCache;
  /**
   * Whether any alert was ever held back, read when first needed: while none was, no
   * alert key need be looked up among the held ones. What a context holds back itself
   * does not change it: its silences do not change either, so an alert it held meets
   * the same silence again.
   */
  anyHeld?: boolean;
  /**
   * Whether any reminder is scheduled, read when first needed: while none is, a notice
   * cancels none and its text need not be searched for the notices it supersedes. Set
   * when this context schedules one.
   */
  anyScheduled?: boolean;
  /** Each pipeline's zone, read once a context. */
  zones?: Map<string, string>;
  /** What the notices decided lately supersede: their reminders are not planned. */
  superseders?: RecentSuperseders;
}

/** `rule|subject|target`: an alert is decided at most once, ever, per key. */
export function alertKey(rule: string, subject: string, target: Target): string {
  return deliveryKey(rule, subject, targetKey(target));
}

/** The silences in force for this context, by what they match, read once. */
async function silencesOf(ctx: DecisionContext): Promise<SilenceIndex> {
  ctx.silences ??=
    (await ctx.silenceCache?.of(ctx.store, ctx.now)) ??
    new SilenceIndex(await ctx.store.silences.active(ctx.now));
  return ctx.silences;
}

/** The first silence in force that holds back an alert, if any. */
async function silenceFor(
  ctx: DecisionContext,
  payload: AlertPayload,
  target: Target,
): Promise<SilenceRow | undefined> {
  // What a silence says when it ends, and operations alerts, are never held.
  if (payload.kind === 'operations' || payload.kind === 'silence') return undefined;
  return (await silencesOf(ctx)).first(
    ctx.now,
    alertLabels(payload.rule, payload.pipeline.slug, target, payload.notice),
  );
}

/** What became of one payload's targets: labels queued, labels decided before, and those held back. */
export interface EnqueueOutcome {
  sent: string[];
  duplicate: string[];
  /** One reason per target a silence held the alert back from (`muted by silence 12 until …`). */
  muted: string[];
}

/**
 * Queues one payload to each target, or holds it back where a silence in force matches
 * the target; each (rule, subject, target) is decided once, ever. A payload about a
 * notice gives `noticeVersion`, the version its `notice` is: the row names that version
 * instead of copying the notice, which the store gives back when the row is read.
 */
export async function enqueueAll(
  ctx: DecisionContext,
  rule: string,
  subject: string,
  targets: readonly Target[],
  payload: AlertPayload,
  noticeVersion?: number,
): Promise<EnqueueOutcome> {
  const ref =
    payload.notice && noticeVersion !== undefined
      ? { id: payload.notice.id, version: noticeVersion }
      : undefined;
  const out: EnqueueOutcome = { sent: [], duplicate: [], muted: [] };
  let json: string | undefined;
  for (const target of targets) {
    const silence = await silenceFor(ctx, payload, target);
    if (silence) {
      const key = alertKey(rule, subject, target);
      const fresh =
        !(await ctx.store.outbox.has(subject, rule, target)) &&
        (await ctx.store.silences.hold(key, {
          silence_id: silence.id,
          rule,
          target,
          targetKey: targetKey(target),
          alert: heldAlert(payload, ctx.now),
          at: ctx.now,
        }));
      if (fresh) out.muted.push(mutedReason(silence, target));
      else out.duplicate.push(targetLabel(target));
      continue;
    }
    // The key stays where it was, so the payload reads back in the same order.
    json ??= JSON.stringify(ref ? { ...payload, notice: null } : payload);
    ctx.anyHeld ??= await ctx.store.silences.anyHeld();
    const fresh =
      !(ctx.anyHeld && (await ctx.store.silences.isHeld(alertKey(rule, subject, target)))) &&
      (await ctx.store.outbox.enqueue(subject, rule, target, json, ctx.now, ref));
    (fresh ? out.sent : out.duplicate).push(targetLabel(target));
  }
  return out;
}

/** The pipeline part of a payload, and the zone its local times are shown in. */
export async function pipelineOf(
  ctx: DecisionContext,
  notice: Pick<Notice, 'pipeline_slug' | 'pipeline_name'>,
) {
  ctx.zones ??= new Map();
  let zone = ctx.zones.get(notice.pipeline_slug);
  if (zone === undefined) {
    zone = await ctx.store.pipelines.zoneOf(notice.pipeline_slug);
    ctx.zones.set(notice.pipeline_slug, zone);
  }
  return {
    pipeline: { slug: notice.pipeline_slug, name: notice.pipeline_name || notice.pipeline_slug },
    zone,
  };
}
