/**
 * Deadline rules' verdicts on a notice: the reminder schedule as the daemon runs it, from
 * the `reminders` table when it planned one, else as it would plan one now: offsets
 * still ahead at their time; of those already passed, the nearest at once, saying how
 * long is left, the earlier ones skipped; nothing once the deadline has passed. A notice
 * of the baseline, or posted longer ago than the alert age, is reminded like any other.
 */

import { targetLabel } from '../domain/targets.js';
import { formatDuration, formatTimeLeft } from '../lib/duration.js';
import type { UtcIso } from '../lib/time.js';
import { toUtcIso } from '../lib/time.js';
import type { DeadlineRule } from '../rules/types.js';
import type { StoredNotice } from '../store/notices.js';
import type { Notice } from '../upstream/schemas.js';
import type { OutboxRow } from './outbox.js';
import { HELD_BACK, isTerminal } from './reminders.js';
import {
  deliveryView,
  describeDelivery,
  type ExplainOptions,
  lastDecision,
  no,
  notInForce,
  type PlannedAlert,
  pipelineOf,
  type ReminderRow,
  type ReminderView,
  stored,
  type Verdict,
} from './verdict.js';

function reminderAlert(
  r: DeadlineRule,
  n: Notice,
  o: ExplainOptions,
  offset: number,
  deadline: UtcIso,
): PlannedAlert {
  return {
    subject: `notice:${n.id}:${r.field}:${offset}`,
    payload: {
      version: 1,
      kind: 'deadline',
      state: 'reminder',
      rule: r.name,
      pipeline: pipelineOf(n),
      zone: o.zone,
      notice: n,
      deadline: { field: r.field, at: deadline, before: formatDuration(offset) },
    },
  };
}

/**
 * The reminders a deadline rule plans for a notice judged now, as the daemon plans them
 * for a notice that arrives (or whose deadline moves): offsets still ahead at their time;
 * of those already passed, the nearest at once, saying how long is left, and the earlier
 * ones skipped; nothing once the deadline has passed.
 */
export function planReminders(rule: DeadlineRule, deadline: UtcIso, now: Date): ReminderView[] {
  const deadlineMs = Date.parse(deadline);
  const nowMs = now.getTime();
  if (deadlineMs <= nowMs) return [];
  const passed = rule.beforeMs.filter((offset) => deadlineMs - offset <= nowMs);
  const nearest = passed.length > 0 ? Math.min(...passed) : undefined;
  return rule.beforeMs.map((offset): ReminderView => {
    const before = formatDuration(offset);
    const due = deadlineMs - offset;
    const view = { before, offset_ms: offset, deliveries: [] };
    if (offset === nearest)
      return {
        ...view,
        due_at: toUtcIso(now),
        status: 'at-once',
        note: `at once, due in ${formatTimeLeft(deadlineMs - nowMs)} (its time had passed)`,
      };
    if (due <= nowMs && nearest !== undefined)
      return {
        ...view,
        due_at: toUtcIso(new Date(due)),
        status: 'skipped',
        note: `skipped: its time had passed; the ${formatDuration(nearest)} reminder says it`,
      };
    return {
      ...view,
      due_at: toUtcIso(new Date(due)),
      status: 'scheduled',
      note: `at ${toUtcIso(new Date(due))}`,
    };
  });
}

/** Each reminder row of a rule as the daemon will treat it at its next run. */
function storedReminders(
  r: DeadlineRule,
  n: Notice,
  rows: readonly ReminderRow[],
  outbox: readonly OutboxRow[],
  now: Date,
): ReminderView[] {
  return rows.map((row): ReminderView => {
    const before = formatDuration(row.offset_ms);
    const prefix = `${r.name}|notice:${n.id}:${row.field}:${row.offset_ms}|`;
    const deliveries = outbox.filter((d) => d.key.startsWith(prefix)).map(deliveryView);
    const view = { before, offset_ms: row.offset_ms, due_at: row.due_at, deliveries };
    const reason = row.reason ?? '';
    switch (row.status) {
      case 'sent':
        return {
          ...view,
          status: 'sent',
          note:
            deliveries.length === 0 && reason.startsWith(HELD_BACK)
              ? reason
              : `sent: ${deliveries.map(describeDelivery).join('; ') || reason}`,
        };
      case 'cancelled':
        return { ...view, status: 'cancelled', note: `cancelled: ${reason}` };
      case 'dropped':
        return /^skipped\b/.test(reason)
          ? { ...view, status: 'skipped', note: reason }
          : { ...view, status: 'dropped', note: `dropped: ${reason}` };
      default:
        if (Date.parse(row.deadline_at) <= now.getTime())
          return {
            ...view,
            status: 'dropped',
            note: `dropped at the next run: ${row.field} ${row.deadline_at} has passed`,
          };
        if (Date.parse(row.due_at) <= now.getTime())
          return {
            ...view,
            status: 'due',
            note: `due since ${row.due_at}: goes out at the next run`,
          };
        return { ...view, status: 'scheduled', note: `at ${row.due_at}` };
    }
  });
}

function listed(reminders: readonly ReminderView[]): string {
  return reminders.map((v) => `${v.before} before: ${v.note}`).join('; ');
}

/** How a deadline rule that matches `n` treats it. */
export function judgeDeadline(
  r: DeadlineRule,
  n: Notice | StoredNotice,
  o: ExplainOptions,
): Verdict {
  const history = o.history;
  const deadline = n[r.field];
  const targets = r.notify.map(targetLabel);
  const rows = history?.reminders.filter((row) => row.rule === r.name) ?? [];
  if (stored(n) && rows.length > 0) {
    const reminders = storedReminders(r, n, rows, history?.outbox ?? [], o.now);
    const deliveries = reminders.flatMap((v) => v.deliveries);
    const next =
      reminders.find((v) => v.status === 'due') ?? reminders.find((v) => v.status === 'scheduled');
    const at = rows[0].deadline_at;
    const text = `${r.field} ${at}: ${listed(reminders)}`;
    if (next) {
      const now = next.status === 'due';
      return {
        ...no(r, now ? 'fires' : 'scheduled', text, { deliveries, reminders }),
        fires: true,
        targets,
        alert: reminderAlert(r, n, o, next.offset_ms, at),
      };
    }
    const sent = reminders.some((v) => v.status === 'sent');
    return no(
      r,
      sent ? 'alerted' : 'not-applicable',
      `${sent ? 'already alerted' : 'no reminders left'}: ${text}`,
      {
        deliveries,
        reminders,
      },
    );
  }
  // Neither the baseline nor the alert age stops reminders: a deadline still ahead counts.
  if (deadline === null) return no(r, 'not-applicable', `matches, but ${r.field} is empty`);
  if (isTerminal(n))
    return no(r, 'not-applicable', `matches, but the notice status is ${n.status}`);
  if (Date.parse(deadline) <= o.now.getTime())
    return no(r, 'not-applicable', `matches, but ${r.field} ${deadline} has passed`);
  const plan = planReminders(r, deadline, o.now);
  const text = `${r.field} ${deadline}: ${listed(plan)}`;
  if (stored(n) && history) {
    const last = lastDecision(r.name, o);
    if (last) return no(r, 'not-applicable', `${last.decision} at ${last.at}: ${last.reason}`);
    return no(r, 'not-in-force', notInForce(n, `were it to change now, reminders ${text}`), {
      reminders: plan,
    });
  }
  const next =
    plan.find((v) => v.status === 'at-once') ?? plan.find((v) => v.status === 'scheduled');
  const source = stored(n) ? '' : 'judged as new (the notice is not stored): ';
  return {
    ...no(r, next?.status === 'at-once' ? 'fires' : 'scheduled', `${source}${text}`, {
      reminders: plan,
    }),
    fires: true,
    targets,
    ...(next ? { alert: reminderAlert(r, n, o, next.offset_ms, deadline) } : {}),
  };
}
