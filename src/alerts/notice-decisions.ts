/**
 * Decisions on notice events: each notice rule that matches gets one alert per target,
 * keyed by (rule, notice and version, target) so it is decided once, ever; each deadline
 * rule that matches schedules its reminders, for the notices stored quietly by the
 * baseline too. Every other decision on a candidate rule is
 * written to the audit trail with its reason; an alert is recorded by the outbox rows it
 * queues, which `why` reads as decisions too (`explain.ts`), and not written twice.
 */
import { type Target, targetLabel } from '../domain/targets.js';
import type { NoticeEvent } from '../ingest/events.js';
import { formatDuration } from '../lib/duration.js';
import { prepareNotice } from '../rules/match.js';
import type { Notice } from '../upstream/schemas.js';
import { type DecisionContext, enqueueAll, pipelineOf } from './context.js';
import { planEscalation } from './escalations.js';
import { noticeChanges } from './notice-changes.js';
import type { AlertPayload } from './payload.js';
import { cancelSuperseded, isTerminal, scheduleReminders } from './reminders.js';
import type { CompiledRules } from './rules.js';
import { supersededNotice } from './superseded.js';

type Decision = Parameters<DecisionContext['store']['audit']['record']>[0]['decision'];

/** Writes one decision on a notice event to the audit trail. */
async function audit(
  ctx: DecisionContext,
  e: NoticeEvent,
  rule: string,
  decision: Decision,
  reason: string,
): Promise<void> {
  const id = e.notice.id;
  await ctx.store.audit.record({
    at: ctx.now,
    rule,
    event: `notice-${e.change}`,
    subject: `notice:${id}`,
    notice_id: id,
    decision,
    reason,
  });
}

/** Why a notice posted before the alert age decides nothing. */
function tooOld(e: NoticeEvent, maxAlertAgeMs: number): string {
  return `too old: posted ${e.notice.posted_at}, more than ${formatDuration(maxAlertAgeMs)} ago`;
}

/**
 * What an alert on `e` says changed, worked out once for all its rules and targets: an
 * update against the version it replaced; a notice that supersedes a stored one links
 * to it and, when new, is compared with it.
 */
async function changesOf(
  ctx: DecisionContext,
  e: NoticeEvent,
): Promise<Pick<AlertPayload, 'changed' | 'changes' | 'supersedes'>> {
  const prior = await supersededNotice(ctx.store, e.notice);
  const supersedes = prior && {
    id: prior.id,
    identifier: prior.identifier,
    subject: prior.subject,
    url: prior.url,
  };
  if (e.change === 'updated')
    return {
      changed: e.changedFields,
      changes: e.previous ? noticeChanges(e.previous, e.notice) : [],
      ...(supersedes ? { supersedes } : {}),
    };
  if (!prior || !supersedes) return {};
  return { changes: noticeChanges(prior, e.notice, 'superseded'), supersedes };
}

/**
 * The targets an update that ends its notice (a status such as Terminate or Cancelled,
 * new in this version) must reach even when the rule does not alert on updates, or the
 * notice is too old to alert: PagerDuty's, whose incident for the notice stays open
 * until resolved. Other targets heard of the notice once, and that is what they asked.
 */
function endingTargets(e: NoticeEvent, notify: readonly Target[]): Target[] {
  if (e.change !== 'updated' || !isTerminal(e.notice)) return [];
  if (e.previous && isTerminal(e.previous)) return [];
  return notify.filter((t) => t.kind === 'pagerduty');
}

/** Decides every notice event of one page. Call inside the page's transaction. */
export async function decideNotices(
  ctx: DecisionContext,
  rules: CompiledRules,
  events: readonly NoticeEvent[],
  maxAlertAgeMs: number,
): Promise<number> {
  let alerts = 0;
  for (const e of events) {
    const n = e.notice;
    const prepared = prepareNotice(n);
    let where: Awaited<ReturnType<typeof pipelineOf>> | undefined;
    let changes: Awaited<ReturnType<typeof changesOf>> | undefined;

    // A filter mismatch is not written: `why` works it out from the rules.
    for (const { group: g, excluded } of rules.notices.matches(prepared)) {
      for (const r of g.rules) {
        if (excluded) {
          await audit(ctx, e, r.name, 'suppressed', 'excluded by its not: filter');
          continue;
        }
        const quiet = !r.on.includes(e.change)
          ? `a notice ${e.change === 'new' ? 'new' : 'update'} is not in on: [${r.on.join(', ')}]`
          : e.tooOld
            ? tooOld(e, maxAlertAgeMs)
            : undefined;
        // An incident opened stays open until told: its end goes to PagerDuty regardless.
        const targets = quiet === undefined ? r.notify : endingTargets(e, r.notify);
        if (quiet !== undefined) {
          const ends =
            targets.length > 0 ? `; its end resolves ${targets.map(targetLabel).join(', ')}` : '';
          await audit(
            ctx,
            e,
            r.name,
            r.on.includes(e.change) ? 'suppressed' : 'not-matched',
            quiet + ends,
          );
          if (targets.length === 0) continue;
        }
        where ??= await pipelineOf(ctx, n);
        changes ??= await changesOf(ctx, e);
        const outcome = await enqueueAll(
          ctx,
          r.name,
          `notice:${n.id}:v${e.change === 'new' ? 1 : e.version}`,
          targets,
          {
            version: 1,
            kind: 'notice',
            state: e.change,
            rule: r.name,
            ...where,
            notice: n,
            ...changes,
          },
          e.version,
        );
        alerts += outcome.sent.length;
        if (outcome.sent.length > 0 && quiet === undefined) await planEscalation(ctx, r, n);
        if (outcome.duplicate.length > 0)
          await audit(
            ctx,
            e,
            r.name,
            'duplicate',
            `already decided for ${outcome.duplicate.join(', ')}`,
          );
        if (outcome.muted.length > 0)
          await audit(ctx, e, r.name, 'muted', outcome.muted.join('; '));
      }
    }

    await cancelSuperseded(ctx, n);
    // Its text is read for what it supersedes only while some rule reminds of deadlines.
    if (rules.deadlinesByName.size > 0) ctx.superseders?.note(n);
    // The alert age keeps old news from alerting as new; a deadline still ahead is not old.
    for (const { group: g, excluded } of rules.deadlines.matches(prepared)) {
      for (const r of g.rules) {
        if (excluded) await audit(ctx, e, r.name, 'suppressed', 'excluded by its not: filter');
        else await audit(ctx, e, r.name, 'scheduled', await scheduleReminders(ctx, r, n));
      }
    }
    // A reminder asked for this very notice follows its deadline wherever it moves.
    for (const r of rules.deadlinesByNotice.get(n.id) ?? [])
      await audit(ctx, e, r.name, 'scheduled', await scheduleReminders(ctx, r, n));
  }
  return alerts;
}

/**
 * Decides the notices stored quietly (the baseline's, newest first): no notice rule
 * alerts on them, but every deadline rule that matches plans its reminders, so a
 * deadline already open when pipewatch started watching is reminded like any other; an
 * offset already passed then reminds at once, for the nearest one. Call inside the
 * page's transaction.
 */
export async function decideBaseline(
  ctx: DecisionContext,
  rules: CompiledRules,
  notices: readonly Notice[],
): Promise<void> {
  for (const n of notices) {
    await cancelSuperseded(ctx, n);
    if (rules.deadlinesByName.size > 0) ctx.superseders?.note(n);
    for (const { group: g, excluded } of rules.deadlines.matches(prepareNotice(n))) {
      for (const r of g.rules) {
        const [decision, reason] = excluded
          ? (['suppressed', 'excluded by its not: filter'] as const)
          : (['scheduled', await scheduleReminders(ctx, r, n, 'baseline')] as const);
        await ctx.store.audit.record({
          at: ctx.now,
          rule: r.name,
          event: 'notice-baseline',
          subject: `notice:${n.id}`,
          notice_id: n.id,
          decision,
          reason,
        });
      }
    }
  }
}
