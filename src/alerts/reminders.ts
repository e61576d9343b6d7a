/**
 * Deadline reminders. When a notice matching a deadline rule arrives or changes, one
 * reminder per offset is scheduled at deadline − offset; a moved deadline moves it, a
 * terminated notice or a cleared deadline cancels it. Each (rule, notice, offset) is sent
 * at most once, never after the deadline; one that came due while pipewatch was down is
 * sent late, once, while the deadline is still ahead. A notice that arrives (or a
 * deadline that moves) after some offsets have passed gets one reminder at once, for
 * the nearest of them; the earlier ones are skipped and the later ones follow.
 */
import { formatDuration } from '../lib/duration.js';
import type { UtcIso } from '../lib/time.js';
import { words } from '../rules/match.js';
import type { DeadlineRule } from '../rules/types.js';
import type { ReminderKey, ReminderStatus } from '../store/reminders.js';
import type { Notice } from '../upstream/schemas.js';
import { type DecisionContext, enqueueAll, pipelineOf } from './context.js';
import { priorIdentifiers, supersededReason } from './superseded.js';

/** Statuses that end a notice, and with it its reminders. */
const TERMINAL = new Set([
  'terminate',
  'terminated',
  'complete',
  'completed',
  'lifted',
  'cancel',
  'cancelled',
  'withdrawn',
]);

/** The reason of a reminder decided but held back from every target by silences. */
export const HELD_BACK = 'held back: ';

/** A reminder sent more than this after it came due is marked late. */
export const LATE_AFTER_MS = 5 * 60_000;

const iso = (ms: number): UtcIso => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** Whether a notice's status ends it. */
export function isTerminal(notice: Notice): boolean {
  return words(notice.status).some((w) => TERMINAL.has(w));
}

/**
 * Cancels the scheduled reminders of the notices `notice` supersedes or terminates,
 * whatever rule scheduled them. Returns how many. Call for every notice event.
 */
export async function cancelSuperseded(ctx: DecisionContext, notice: Notice): Promise<number> {
  ctx.anyScheduled ??= await ctx.store.reminders.anyScheduled();
  if (!ctx.anyScheduled) return 0;
  const priors = priorIdentifiers(notice);
  if (priors.length === 0) return 0;
  let cancelled = 0;
  const reason = supersededReason(notice);
  for (const identifier of priors) {
    const scheduled = await ctx.store.reminders.scheduledForIdentifier(
      notice.pipeline_slug,
      identifier,
      notice.id,
    );
    for (const id of new Set(scheduled.map((r) => r.notice_id))) {
      const rows = scheduled.filter((r) => r.notice_id === id);
      for (const r of rows) await setStatus(ctx, r, 'cancelled', reason);
      for (const rule of new Set(rows.map((r) => r.rule)))
        await ctx.store.audit.record({
          at: ctx.now,
          rule,
          event: 'notice-superseded',
          subject: `notice:${id}`,
          notice_id: id,
          decision: 'cancelled',
          reason,
        });
      cancelled += rows.length;
    }
  }
  return cancelled;
}

async function setStatus(
  ctx: DecisionContext,
  r: ReminderKey,
  status: ReminderStatus,
  reason: string,
) {
  await ctx.store.reminders.setStatus(r, status, reason, ctx.now);
}

/**
 * Schedules, moves or cancels a rule's reminders for a notice; returns what it did, for
 * the audit trail. An offset is (re)planned when it has no reminder yet or its deadline
 * moved; one already sent or skipped stays as it is. Of the replanned offsets whose time
 * has already come (the notice arrived late, or the deadline moved earlier), the nearest
 * goes out at once, saying how long is left, and the earlier ones are skipped: one
 * reminder now says all they would have. Later offsets follow at their time.
 */
export async function scheduleReminders(
  ctx: DecisionContext,
  rule: DeadlineRule,
  notice: Notice,
  arrival: 'arrived' | 'baseline' = 'arrived',
): Promise<string> {
  const existing = await ctx.store.reminders.forRule(rule.name, notice.id);
  const deadline = notice[rule.field];
  const superseded = ctx.superseders?.reasonFor(notice);
  if (deadline === null || isTerminal(notice) || superseded) {
    const why =
      superseded ??
      (deadline === null ? `${rule.field} is empty` : `notice status is ${notice.status}`);
    for (const r of existing.filter((r) => r.status === 'scheduled'))
      await setStatus(ctx, r, 'cancelled', why);
    return `no reminders: ${why}`;
  }
  const now = Date.parse(ctx.now);
  const deadlineMs = Date.parse(deadline);
  if (deadlineMs <= now) return `no reminders: ${rule.field} ${deadline} has passed`;
  const rowOf = (offset: number) => existing.find((r) => r.offset_ms === offset);
  const replanned = rule.beforeMs.filter((offset) => {
    const row = rowOf(offset);
    if (!row || row.status === 'cancelled') return true;
    return row.status === 'scheduled' && row.deadline_at !== deadline;
  });
  const passed = replanned.filter((o) => deadlineMs - o <= now);
  const nearest = passed.length > 0 ? Math.min(...passed) : undefined;
  const cause =
    existing.length > 0
      ? 'before the deadline moved'
      : arrival === 'baseline'
        ? 'before pipewatch started watching'
        : 'before the notice arrived';
  const left = formatDuration(Math.floor((deadlineMs - now) / 60_000) * 60_000 || 60_000);
  const done: string[] = [];
  for (const offset of rule.beforeMs) {
    const row = rowOf(offset);
    const before = formatDuration(offset);
    if (!replanned.includes(offset)) {
      if (row?.status === 'scheduled') done.push(`${before} before: at ${row.due_at}`);
      continue;
    }
    const due = deadlineMs - offset;
    let status: 'scheduled' | 'dropped' = 'scheduled';
    let dueAt = iso(due);
    let reason: string | null = null;
    let said: string;
    if (offset === nearest) {
      dueAt = ctx.now;
      reason = `came due ${cause}: sent at once, ${left} before the deadline`;
      said = `${before} before: at once (came due ${cause}; ${left} left)`;
    } else if (passed.includes(offset) && nearest !== undefined) {
      status = 'dropped';
      reason = `skipped: came due ${cause}; the ${formatDuration(nearest)} reminder went out at once instead`;
      said = `${before} before: skipped (came due ${cause})`;
    } else {
      const moved = row && row.deadline_at !== deadline ? ` (moved from ${row.deadline_at})` : '';
      said = `${before} before: at ${dueAt}${moved}`;
    }
    if (status === 'scheduled') ctx.anyScheduled = true;
    await ctx.store.reminders.plan(
      {
        rule: rule.name,
        notice_id: notice.id,
        offset_ms: offset,
        field: rule.field,
        deadline_at: deadline,
        due_at: dueAt,
        status,
        reason,
      },
      ctx.now,
      notice,
    );
    done.push(said);
  }
  return done.length > 0 ? `reminders ${done.join('; ')}` : 'reminders already sent';
}

/**
 * Sends every reminder due at `ctx.now` through the outbox; drops those whose deadline
 * has passed. Call inside a transaction. `rules` are the current deadline rules by name.
 */
export async function sendDueReminders(
  ctx: DecisionContext,
  rules: ReadonlyMap<string, DeadlineRule>,
): Promise<{ sent: number; dropped: number }> {
  const due = await ctx.store.reminders.due(ctx.now);
  let sent = 0;
  let dropped = 0;
  const now = Date.parse(ctx.now);
  for (const r of due) {
    const rule = rules.get(r.rule);
    const notice = await ctx.store.notices.get(r.notice_id);
    const subject = `notice:${r.notice_id}`;
    const audit = async (decision: 'alert' | 'dropped' | 'cancelled' | 'muted', reason: string) =>
      await ctx.store.audit.record({
        at: ctx.now,
        rule: r.rule,
        event: 'deadline',
        subject,
        notice_id: r.notice_id,
        decision,
        reason,
      });
    if (!rule || !notice) {
      await setStatus(
        ctx,
        r,
        'cancelled',
        rule ? 'notice no longer stored' : 'rule no longer exists',
      );
      await audit(
        'cancelled',
        rule ? 'notice no longer stored' : `rule ${r.rule} no longer exists`,
      );
      continue;
    }
    if (Date.parse(r.deadline_at) <= now) {
      await setStatus(ctx, r, 'dropped', 'deadline passed before it could be sent');
      await audit(
        'dropped',
        `${formatDuration(r.offset_ms)} reminder: ${r.field} ${r.deadline_at} passed before it could be sent`,
      );
      dropped++;
      continue;
    }
    const late = now - Date.parse(r.due_at) > LATE_AFTER_MS;
    const before = formatDuration(r.offset_ms);
    const outcome = await enqueueAll(
      ctx,
      rule.name,
      `${subject}:${r.field}:${r.offset_ms}`,
      rule.notify,
      {
        version: 1,
        kind: 'deadline',
        state: 'reminder',
        rule: rule.name,
        ...(await pipelineOf(ctx, notice)),
        notice,
        deadline: { field: r.field, at: r.deadline_at, before, ...(late ? { late: true } : {}) },
      },
      notice.version,
    );
    const to = [...outcome.sent, ...outcome.duplicate];
    // Decided either way; one that every target's silence held back says so, not "sent".
    const held = to.length === 0 && outcome.muted.length > 0;
    const status = held ? `${HELD_BACK}${outcome.muted.join('; ')}` : late ? 'sent late' : 'sent';
    await setStatus(ctx, r, 'sent', status);
    if (to.length > 0 || outcome.muted.length === 0)
      await audit('alert', `${before} reminder${late ? ' (late)' : ''} to ${to.join(', ')}`);
    if (outcome.muted.length > 0)
      await audit('muted', `${before} reminder ${outcome.muted.join('; ')}`);
    sent++;
  }
  return { sent, dropped };
}
