/**
 * The end of a notice, as its `end_at` passes, for the PagerDuty incidents its alerts
 * opened: no event comes from the API when a notice's end date arrives, so the `alerts`
 * feed looks, at each run, for notices whose end passed since its last successful run
 * (at least `ENDS_LOOKBACK_MS` back, so a run that failed midway is covered, and as far
 * back as pipewatch was down), and queues one more alert of the notice to each PagerDuty target a rule alerted about
 * it, which the channel sends as a resolve (the notice has ended by then). Keyed by the
 * notice and its end (`notice:101:ended:<end_at>`), each is decided once, however often
 * the feed runs; an end moved later and passing again resolves again. A placeholder end
 * (`until further notice`) never passes; a status that ends the notice has resolved it
 * already (`notice-decisions.ts`). Runs only while some notice rule notifies PagerDuty.
 */
import { isOpenEnded } from '../domain/open-ended.js';
import { type Target, targetKey, targetLabel } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';
import { prepareNotice } from '../rules/match.js';
import type { StoredNotice } from '../store/notices.js';
import { type DecisionContext, enqueueAll, pipelineOf } from './context.js';
import { isTerminal } from './reminders.js';
import type { CompiledRules } from './rules.js';

/** How far back an end is looked for at least, whenever the feed last ran. */
export const ENDS_LOOKBACK_MS = 24 * 3_600_000;

/** The `alerts` feed's name in the sync state, whose last success bounds the look-back. */
const ALERTS_FEED = 'alerts';

const iso = (ms: number): UtcIso => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** Whether any notice rule pages: only then are ends looked for. */
export function anyNoticeRulePages(rules: CompiledRules): boolean {
  return rules.all.some(
    (r) => r.kind === 'notices' && r.notify.some((t) => t.kind === 'pagerduty'),
  );
}

/** The PagerDuty targets `rule` alerted about notice `id`: those that may have an incident open. */
async function paged(
  ctx: DecisionContext,
  rule: string,
  n: StoredNotice,
  notify: readonly Target[],
) {
  const targets = notify.filter((t) => t.kind === 'pagerduty');
  if (targets.length === 0) return [];
  const sent = new Set(
    (await ctx.store.outbox.forSubject(`notice:${n.id}:v`))
      .filter((row) => row.rule === rule)
      .map((row) => targetKey(row.target)),
  );
  return targets.filter((t) => sent.has(targetKey(t)));
}

/**
 * Queues the resolve of each notice whose end passed, to the PagerDuty targets that
 * heard of it; returns how many were queued. Call inside a transaction.
 */
export async function resolveEndedNotices(
  ctx: DecisionContext,
  rules: CompiledRules,
): Promise<number> {
  if (!anyNoticeRulePages(rules)) return 0;
  const now = Date.parse(ctx.now);
  const lastRun = (await ctx.store.syncState.get(ALERTS_FEED))?.last_success_at;
  const from = Math.min(now - ENDS_LOOKBACK_MS, lastRun ? Date.parse(lastRun) : now);
  let queued = 0;
  for (const n of await ctx.store.notices.endedBetween(iso(from), ctx.now)) {
    if (isOpenEnded(n) || isTerminal(n)) continue;
    let where: Awaited<ReturnType<typeof pipelineOf>> | undefined;
    for (const { group: g, excluded } of rules.notices.matches(prepareNotice(n))) {
      if (excluded) continue;
      for (const r of g.rules) {
        const targets = await paged(ctx, r.name, n, r.notify);
        if (targets.length === 0) continue;
        where ??= await pipelineOf(ctx, n);
        const outcome = await enqueueAll(
          ctx,
          r.name,
          `notice:${n.id}:ended:${n.end_at}`,
          targets,
          { version: 1, kind: 'notice', state: 'updated', rule: r.name, ...where, notice: n },
          n.version,
        );
        if (outcome.sent.length === 0) continue;
        queued += outcome.sent.length;
        await ctx.store.audit.record({
          at: ctx.now,
          rule: r.name,
          event: 'notice-ended',
          subject: `notice:${n.id}`,
          notice_id: n.id,
          decision: 'resolved',
          reason: `its end ${n.end_at} passed; resolves ${targets.map(targetLabel).join(', ')}`,
        });
      }
    }
  }
  return queued;
}
