/**
 * What every decision needs: the store (inside the ingest transaction), the time, the
 * alert age, and how to build the common parts of a payload.
 */

import type { Target } from '../domain/targets.js';
import { targetKey, targetLabel } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';
import type { Store } from '../store/index.js';
import type { Notice } from '../upstream/schemas.js';
import type { AlertPayload } from './payload.js';

export interface DecisionContext {
  store: Store;
  now: UtcIso;
}

/** `rule|subject|target`: an alert is decided at most once, ever, per key. */
export function alertKey(rule: string, subject: string, target: Target): string {
  return `${rule}|${subject}|${targetKey(target)}`;
}

/** Queues one payload to each target; returns how many were new and how many decided before. */
export function enqueueAll(
  ctx: DecisionContext,
  rule: string,
  subject: string,
  targets: readonly Target[],
  payload: AlertPayload,
): { sent: string[]; duplicate: string[] } {
  const sent: string[] = [];
  const duplicate: string[] = [];
  const json = JSON.stringify(payload);
  for (const target of targets) {
    const fresh = ctx.store.outbox.enqueue(
      alertKey(rule, subject, target),
      rule,
      target,
      json,
      ctx.now,
    );
    (fresh ? sent : duplicate).push(targetLabel(target));
  }
  return { sent, duplicate };
}

/** The pipeline part of a payload, and the zone its local times are shown in. */
export function pipelineOf(
  ctx: DecisionContext,
  notice: Pick<Notice, 'pipeline_slug' | 'pipeline_name'>,
) {
  return {
    pipeline: { slug: notice.pipeline_slug, name: notice.pipeline_name || notice.pipeline_slug },
    zone: ctx.store.pipelines.zoneOf(notice.pipeline_slug),
  };
}
