/**
 * Escalation of notice alerts nobody acknowledged. A notice rule with `escalate: {after,
 * to}` plans one escalation per notice as it first alerts about it (`planEscalation`);
 * the `alerts` feed, at each run (`runEscalations`), then:
 *  - sends a planned one whose wait has passed to `to`, once, unless someone
 *    acknowledged a message that carried the notice, on any Slack or Discord channel and
 *    from any rule (a click on Acknowledge is a person taking the notice on);
 *  - drops a planned one whose notice ended first (a status such as Cancelled, or its
 *    end passed), or whose rule no longer escalates (changed, removed, paused);
 *  - watches an escalated one until it is acknowledged after all or its notice ends, and
 *    then resolves what the escalation opened at each PagerDuty target it reached.
 *
 * The wait runs from the decision to alert, not from the send: an alert that could not
 * be delivered (a failing Slack) is one nobody could acknowledge, which is what
 * escalation is for. Every decision is written to the audit trail, which `why` shows.
 */

import { isOpenEnded } from '../domain/open-ended.js';
import { postedMessageOf } from '../domain/posted-message.js';
import { type Target, targetLabel } from '../domain/targets.js';
import { formatDuration } from '../lib/duration.js';
import type { UtcIso } from '../lib/time.js';
import type { NoticeRule } from '../rules/types.js';
import type { AuditDecision } from '../store/audit.js';
import type { EscalationRow } from '../store/escalations.js';
import type { StoredNotice } from '../store/notices.js';
import type { Notice } from '../upstream/schemas.js';
import { type DecisionContext, type EnqueueOutcome, enqueueAll, pipelineOf } from './context.js';
import type { Escalated } from './payload.js';
import { isTerminal } from './reminders.js';
import type { CompiledRules } from './rules.js';

const iso = (ms: number): UtcIso => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** Whether nothing is left to escalate about: its status ends it, or its end passed. */
function hasEnded(n: Notice, now: UtcIso): string | undefined {
  if (isTerminal(n)) return `its status is ${n.status}`;
  if (n.end_at && !isOpenEnded(n) && Date.parse(n.end_at) <= Date.parse(now))
    return `its end ${n.end_at} passed`;
  return undefined;
}

async function record(
  ctx: DecisionContext,
  rule: string,
  noticeId: number,
  decision: AuditDecision,
  reason: string,
): Promise<void> {
  await ctx.store.audit.record({
    at: ctx.now,
    rule,
    event: 'escalation',
    subject: `notice:${noticeId}`,
    notice_id: noticeId,
    decision,
    reason,
  });
}

/**
 * Plans the escalation of notice `n` by rule `r`, which has just queued an alert of it;
 * nothing when the rule does not escalate, the notice has ended, or one is planned
 * already (an update of the notice does not start the wait again). Call inside the
 * decision's transaction.
 */
export async function planEscalation(
  ctx: DecisionContext,
  r: NoticeRule,
  n: Notice,
): Promise<void> {
  const e = r.escalate;
  if (!e || hasEnded(n, ctx.now)) return;
  if (!(await ctx.store.escalations.plan(r.name, n.id, ctx.now))) return;
  const due = iso(Date.parse(ctx.now) + e.afterMs);
  await record(
    ctx,
    r.name,
    n.id,
    'scheduled',
    `escalates to ${e.to.map(targetLabel).join(', ')} at ${due} unless acknowledged`,
  );
}

/** Who first acknowledged a message that carried the notice, where and when. */
interface FoundAck {
  by: string;
  at: UtcIso;
  where: string;
}

/** The first acknowledgement of any Slack or Discord message that carried notice `id`. */
async function acknowledgement(ctx: DecisionContext, id: number): Promise<FoundAck | undefined> {
  let first: FoundAck | undefined;
  for (const row of await ctx.store.outbox.forSubject(`notice:${id}:`)) {
    if (row.status !== 'sent') continue;
    const m = postedMessageOf(row.target.kind, row.detail);
    const ack = m && (await ctx.store.acks.of(m.platform, m.channel, m.message));
    if (ack && (!first || ack.at < first.at)) first = { ...ack, where: targetLabel(row.target) };
  }
  return first;
}

/** `to pagerduty:…9a1b; muted by silence 3 until …`: what became of a payload's targets. */
function outcomeText(o: EnqueueOutcome): string {
  const parts = [];
  if (o.sent.length > 0) parts.push(`to ${o.sent.join(', ')}`);
  if (o.duplicate.length > 0) parts.push(`already decided for ${o.duplicate.join(', ')}`);
  parts.push(...o.muted);
  return parts.join('; ');
}

/** Queues an escalation's alert of `n` to `targets`, under its own subject. */
async function send(
  ctx: DecisionContext,
  row: EscalationRow,
  n: StoredNotice,
  suffix: 'escalated' | 'acknowledged' | 'ended',
  targets: readonly Target[],
  escalation: Escalated,
): Promise<EnqueueOutcome> {
  return enqueueAll(
    ctx,
    row.rule,
    `notice:${n.id}:escalation-${suffix}`,
    targets,
    {
      version: 1,
      kind: 'notice',
      state: suffix === 'escalated' ? 'new' : 'updated',
      rule: row.rule,
      ...(await pipelineOf(ctx, n)),
      notice: n,
      escalation,
    },
    n.version,
  );
}

/** A planned escalation, at its time: sent, or not needed any more. */
async function decidePending(
  ctx: DecisionContext,
  row: EscalationRow,
  n: StoredNotice,
  rule: NoticeRule | undefined,
): Promise<number> {
  const e = rule?.escalate;
  if (!e) {
    await ctx.store.escalations.decide(row.rule, n.id, 'dropped', ctx.now);
    await record(
      ctx,
      row.rule,
      n.id,
      'dropped',
      'not escalated: the rule no longer escalates, or is not in force',
    );
    return 0;
  }
  if (Date.parse(row.alerted_at) + e.afterMs > Date.parse(ctx.now)) return 0;
  const after = formatDuration(e.afterMs);
  const ack = await acknowledgement(ctx, n.id);
  if (ack) {
    await ctx.store.escalations.decide(row.rule, n.id, 'acknowledged', ctx.now);
    await record(
      ctx,
      row.rule,
      n.id,
      'acknowledged',
      `not escalated: acknowledged by ${ack.by} at ${ack.at} on ${ack.where}`,
    );
    return 0;
  }
  const ended = hasEnded(n, ctx.now);
  if (ended) {
    await ctx.store.escalations.decide(row.rule, n.id, 'dropped', ctx.now);
    await record(ctx, row.rule, n.id, 'dropped', `not escalated: ${ended}`);
    return 0;
  }
  const outcome = await send(ctx, row, n, 'escalated', e.to, { after });
  await ctx.store.escalations.decide(row.rule, n.id, 'escalated', ctx.now);
  await record(
    ctx,
    row.rule,
    n.id,
    'escalated',
    `not acknowledged within ${after}; ${outcomeText(outcome)}`,
  );
  return outcome.sent.length;
}

/**
 * An escalated one: resolved at the PagerDuty targets it reached once someone
 * acknowledges the notice after all, or the notice ends. The targets are those its
 * escalation was queued to, whatever the rule says now.
 */
async function watchEscalated(
  ctx: DecisionContext,
  row: EscalationRow,
  n: StoredNotice,
): Promise<number> {
  const ack = await acknowledgement(ctx, n.id);
  const ended = ack ? undefined : hasEnded(n, ctx.now);
  if (!ack && !ended) return 0;
  const escalated = (
    await ctx.store.outbox.forSubject(`notice:${n.id}:escalation-escalated`)
  ).filter((o) => o.rule === row.rule);
  const paged = escalated.map((o) => o.target).filter((t) => t.kind === 'pagerduty');
  const after = escalated[0]?.payload.escalation?.after ?? '';
  await ctx.store.escalations.decide(row.rule, n.id, 'resolved', ctx.now);
  const why = ack ? `acknowledged by ${ack.by} at ${ack.at} on ${ack.where}` : ended;
  if (paged.length === 0) {
    await record(ctx, row.rule, n.id, 'resolved', `${why} after the escalation`);
    return 0;
  }
  const outcome = ack
    ? await send(ctx, row, n, 'acknowledged', paged, {
        after,
        acknowledged: { by: ack.by, at: ack.at },
      })
    : await send(ctx, row, n, 'ended', paged, { after });
  await record(
    ctx,
    row.rule,
    n.id,
    'resolved',
    `${why} after the escalation; resolves ${outcomeText(outcome).replace(/^to /, '')}`,
  );
  return outcome.sent.length;
}

/**
 * Decides every escalation whose time has come and watches those escalated; returns how
 * many alerts it queued. Call inside a transaction.
 */
export async function runEscalations(ctx: DecisionContext, rules: CompiledRules): Promise<number> {
  if (!(await ctx.store.escalations.anyOpen())) return 0;
  const byName = new Map<string, NoticeRule>();
  for (const r of rules.all) if (r.kind === 'notices') byName.set(r.name, r);
  let queued = 0;
  for (const row of await ctx.store.escalations.open()) {
    const n = await ctx.store.notices.get(row.notice_id);
    if (!n) {
      await ctx.store.escalations.decide(row.rule, row.notice_id, 'dropped', ctx.now);
      await record(
        ctx,
        row.rule,
        row.notice_id,
        'dropped',
        'not escalated: the notice is no longer stored',
      );
      continue;
    }
    queued +=
      row.status === 'pending'
        ? await decidePending(ctx, row, n, byName.get(row.rule))
        : await watchEscalated(ctx, row, n);
  }
  return queued;
}
