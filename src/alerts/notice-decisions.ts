/**
 * Decisions on notice events: each notice rule that matches gets one alert per target,
 * keyed by (rule, notice and version, target) so it is decided once, ever; each deadline
 * rule that matches schedules its reminders. Every other decision on a candidate rule is
 * written to the audit trail with its reason; an alert is recorded by the outbox rows it
 * queues, which `why` reads as decisions too (`explain.ts`), and not written twice.
 */
import type { NoticeEvent } from '../ingest/events.js';
import { formatDuration } from '../lib/duration.js';
import { prepareNotice } from '../rules/match.js';
import { type DecisionContext, enqueueAll, pipelineOf } from './context.js';
import { cancelSuperseded, scheduleReminders } from './reminders.js';
import type { CompiledRules } from './rules.js';

/** Decides every notice event of one page. Call inside the page's transaction. */
export function decideNotices(
  ctx: DecisionContext,
  rules: CompiledRules,
  events: readonly NoticeEvent[],
  maxAlertAgeMs: number,
): number {
  let alerts = 0;
  const maxAge = formatDuration(maxAlertAgeMs);
  for (const e of events) {
    const n = e.notice;
    const prepared = prepareNotice(n);
    const subject = `notice:${n.id}`;
    const event = `notice-${e.change}`;
    const audit = (
      rule: string,
      decision: Parameters<typeof ctx.store.audit.record>[0]['decision'],
      reason: string,
    ) =>
      ctx.store.audit.record({
        at: ctx.now,
        rule,
        event,
        subject,
        notice_id: n.id,
        decision,
        reason,
      });

    let where: ReturnType<typeof pipelineOf> | undefined;
    const whereOf = () => {
      where ??= pipelineOf(ctx, n);
      return where;
    };
    const tooOld = () => `too old: posted ${n.posted_at}, more than ${maxAge} ago`;

    // A filter mismatch is not written: `why` works it out from the rules.
    for (const { group: g, excluded } of rules.notices.matches(prepared)) {
      for (const r of g.rules) {
        if (excluded) {
          audit(r.name, 'suppressed', 'excluded by its not: filter');
          continue;
        }
        if (!r.on.includes(e.change)) {
          audit(
            r.name,
            'not-matched',
            `a notice ${e.change === 'new' ? 'new' : 'update'} is not in on: [${r.on.join(', ')}]`,
          );
          continue;
        }
        if (e.tooOld) {
          audit(r.name, 'suppressed', tooOld());
          continue;
        }
        const versionSubject = e.change === 'new' ? `${subject}:v1` : `${subject}:v${e.version}`;
        const outcome = enqueueAll(
          ctx,
          r.name,
          versionSubject,
          r.notify,
          {
            version: 1,
            kind: 'notice',
            state: e.change,
            rule: r.name,
            ...whereOf(),
            notice: n,
            ...(e.change === 'updated' ? { changed: e.changedFields } : {}),
          },
          e.version,
        );
        alerts += outcome.sent.length;
        if (outcome.duplicate.length > 0)
          audit(r.name, 'duplicate', `already decided for ${outcome.duplicate.join(', ')}`);
        if (outcome.muted.length > 0) audit(r.name, 'muted', outcome.muted.join('; '));
      }
    }

    cancelSuperseded(ctx, n);
    for (const { group: g, excluded } of rules.deadlines.matches(prepared)) {
      for (const r of g.rules) {
        if (excluded) audit(r.name, 'suppressed', 'excluded by its not: filter');
        else if (e.tooOld) audit(r.name, 'suppressed', tooOld());
        else audit(r.name, 'scheduled', scheduleReminders(ctx, r, n));
      }
    }
    // A reminder asked for this very notice follows its deadline wherever it moves.
    for (const r of rules.deadlinesByNotice.get(n.id) ?? [])
      audit(r.name, 'scheduled', scheduleReminders(ctx, r, n));
  }
  return alerts;
}
