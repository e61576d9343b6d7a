/**
 * When a silence ends (its time runs out, or someone lifts it), each target it held
 * alerts back from gets one message summing them up: how many, and the newest of them
 * with links. Decided once per silence and target, in the alerts feed's pass.
 */
import type { Target } from '../domain/targets.js';
import { targetKey } from '../domain/targets.js';
import { silenceEnd } from '../store/silences.js';
import { type DecisionContext, enqueueAll } from './context.js';
import type { HeldAlert } from './payload.js';
import { heldAlertSchema } from './payload-schema.js';
import { equalValues } from './silence-matchers.js';
import { matchersText } from './silences.js';

/** The most held alerts a summary lists; the rest are counted. */
export const SUMMARY_LIST_MAX = 20;

/** Queues the summaries of the silences that have ended; returns how many were queued. */
export async function summarizeEndedSilences(ctx: DecisionContext): Promise<number> {
  let queued = 0;
  for (const s of await ctx.store.silences.endedUnsummarized(ctx.now)) {
    const held = await ctx.store.silences.heldBy(s.id);
    const byTarget = new Map<string, { target: Target; held: number; alerts: HeldAlert[] }>();
    for (const h of held) {
      const key = targetKey(h.target);
      const entry = byTarget.get(key) ?? { target: h.target, held: 0, alerts: [] };
      byTarget.set(key, entry);
      // One that cannot be read back (damaged, or of an older shape) is counted, not listed.
      entry.held += 1;
      const alert = heldAlertSchema.safeParse(h.alert);
      if (alert.success) entry.alerts.push(alert.data);
    }
    const pipelines = s.matchers.some((m) => m.key === 'pipeline' && m.op !== '=')
      ? undefined
      : equalValues(s.matchers, 'pipeline');
    const pipeline =
      pipelines?.length === 1
        ? {
            slug: pipelines[0],
            name: (await ctx.store.pipelines.bySlug(pipelines[0]))?.name || pipelines[0],
          }
        : { slug: 'all', name: pipelines ? pipelines.join(', ') : 'all pipelines' };
    const ended = silenceEnd(s) ?? ctx.now;
    for (const { target, held: count, alerts } of byTarget.values()) {
      const rule = `silence-${s.id}`;
      const outcome = await enqueueAll(ctx, rule, `silence:${s.id}:ended`, [target], {
        version: 1,
        kind: 'silence',
        state: 'ended',
        rule,
        pipeline,
        zone: 'UTC',
        silence: {
          id: s.id,
          matchers: matchersText(s),
          started_at: s.starts_at,
          ended_at: ended,
          ended_by: s.lifted_at !== null && s.lifted_at === ended ? 'lifted' : 'expired',
          held: count,
          alerts: alerts.slice(0, SUMMARY_LIST_MAX),
        },
      });
      queued += outcome.sent.length;
    }
    await ctx.store.silences.markSummarized(s.id, ctx.now);
  }
  return queued;
}
