/**
 * Each rule's verdict on a notice, as the daemon would act on it, without writing
 * anything: what `pipewatch rules test` prints and `pipewatch why` adds to the audit
 * trail. A stored notice is judged against what the daemon already did with it (the
 * baseline, the outbox, the reminders it planned, the audit trail); a notice that is not
 * stored (from a file) is judged as if it arrived now. Only a verdict that would really
 * alert says so.
 */

import { targetLabel } from '../domain/targets.js';
import { formatDuration } from '../lib/duration.js';
import { type Mismatch, type PreparedNotice, prepareNotice } from '../rules/match.js';
import type { DeadlineRule, NoticeRule } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import type { AuditEntry } from '../store/audit.js';
import type { StoredNotice } from '../store/notices.js';
import type { Notice } from '../upstream/schemas.js';
import { judgeDeadline } from './explain-deadlines.js';
import type { OutboxRow } from './outbox.js';
import type { CompiledRules, RuleGroup } from './rules.js';
import {
  BASELINE,
  deliveryView,
  describeDelivery,
  type ExplainOptions,
  lastDecision,
  type NoticeHistory,
  no,
  notInForce,
  pipelineOf,
  type ReminderRow,
  stored,
  tooOld,
  type Verdict,
} from './verdict.js';

export { planReminders } from './explain-deadlines.js';
export * from './verdict.js';

/** Reads what the daemon did with a stored notice. */
export async function noticeHistory(store: AsyncStore, noticeId: number): Promise<NoticeHistory> {
  const outbox = await store.outbox.forSubject(`notice:${noticeId}:`);
  return {
    audit: withAlerts(await store.audit.forNotice(noticeId), outbox),
    outbox,
    reminders: await store.reminders.forNotice(noticeId),
  };
}

/**
 * A notice's decisions: its audit trail, with each alert a notice rule queued put in from
 * the deliveries that rule queued, as `matched; to #gas, console`. Those are not written
 * to the audit trail: the outbox rows record them, once each. In time order; at one
 * instant, the alerts first, as they were decided before the duplicates and holds beside
 * them.
 */
function withAlerts(audit: AuditEntry[], outbox: readonly OutboxRow[]): AuditEntry[] {
  const alerts = new Map<string, AuditEntry>();
  for (const d of outbox) {
    const [, id, version] = /^notice:(\d+):v(\d+)$/.exec(d.subject) ?? [];
    if (id === undefined) continue;
    const label = targetLabel(d.target);
    const decided = alerts.get(`${d.rule}|${d.subject}`);
    if (decided) {
      decided.reason += `, ${label}`;
      continue;
    }
    alerts.set(`${d.rule}|${d.subject}`, {
      at: d.created_at,
      rule: d.rule,
      event: version === '1' ? 'notice-new' : 'notice-updated',
      subject: `notice:${id}`,
      notice_id: Number(id),
      decision: 'alert',
      reason: `matched; to ${label}`,
    });
  }
  if (alerts.size === 0) return audit;
  return [...alerts.values(), ...audit].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/**
 * What the daemon did with each of many stored notices, read in one pass over the
 * outbox and the reminders rather than one search per notice.
 */
export async function noticeHistories(
  store: AsyncStore,
  ids: readonly number[],
): Promise<(noticeId: number) => Promise<NoticeHistory>> {
  const wanted = new Set(ids);
  const outbox = new Map<number, OutboxRow[]>();
  for (const row of await store.outbox.forSubject('notice:')) {
    const id = Number(/^notice:(\d+):/.exec(row.subject)?.[1]);
    if (!wanted.has(id)) continue;
    outbox.set(id, [...(outbox.get(id) ?? []), row]);
  }
  const reminders = new Map<number, ReminderRow[]>();
  for (const row of await store.reminders.all()) {
    if (!wanted.has(row.notice_id)) continue;
    reminders.set(row.notice_id, [...(reminders.get(row.notice_id) ?? []), row]);
  }
  return async (id) => ({
    audit: withAlerts(await store.audit.forNotice(id), outbox.get(id) ?? []),
    outbox: outbox.get(id) ?? [],
    reminders: reminders.get(id) ?? [],
  });
}

/**
 * How every notice and deadline rule treats `notice`: each group of rules judged in
 * turn, as the rules are listed. `explain-index.ts` gives the same verdicts for many
 * notices while judging only the groups a notice's fields can match.
 */
export function explainNotice(
  rules: CompiledRules,
  notice: Notice | StoredNotice,
  options: ExplainOptions,
): Verdict[] {
  const prepared = prepareNotice(notice);
  const verdicts: Verdict[] = [];
  for (const g of [...rules.notices.groups, ...rules.deadlines.groups])
    groupVerdicts(g, prepared, options, verdicts);
  return verdicts;
}

/** The verdicts of one group's rules on a prepared notice, appended to `into`. */
export function groupVerdicts(
  g: RuleGroup<NoticeRule | DeadlineRule>,
  prepared: PreparedNotice,
  options: ExplainOptions,
  into: Verdict[],
): void {
  const notice = prepared.notice as Notice | StoredNotice;
  const mismatch = g.match(prepared);
  const excluded = mismatch === null && g.exclude?.(prepared) === null;
  for (const r of g.rules) {
    if (mismatch !== null) into.push(notMatched(r, mismatch));
    else if (excluded) into.push(no(r, 'excluded', 'excluded by its not: filter'));
    else if (r.kind === 'notices') into.push(judgeNotice(r, notice, options));
    else into.push(judgeDeadline(r, notice, options));
  }
}

/** A rule's verdict on a notice its filter does not match, on the field that failed first. */
export function notMatched(r: NoticeRule | DeadlineRule, field: Mismatch): Verdict {
  return no(r, 'not-matched', `not matched on ${field}`);
}

function judgeNotice(r: NoticeRule, n: Notice | StoredNotice, o: ExplainOptions): Verdict {
  const history = o.history;
  if (stored(n) && history) {
    const mine = history.outbox.filter(
      (d) => d.rule === r.name && d.subject.startsWith(`notice:${n.id}:v`),
    );
    if (mine.length > 0) {
      const version = (d: OutboxRow) => Number(/:v(\d+)$/.exec(d.subject)?.[1] ?? 0);
      const latest = Math.max(...mine.map(version));
      const deliveries = mine.filter((d) => version(d) === latest).map(deliveryView);
      return no(
        r,
        'alerted',
        `already alerted: v${latest} → ${deliveries.map(describeDelivery).join('; ')}`,
        { deliveries },
      );
    }
    if (n.baseline) return no(r, 'baseline', BASELINE);
  }
  const old = tooOld(n, o);
  if (old) return no(r, 'too-old', old);
  if (!r.on.includes('new'))
    return no(
      r,
      'not-applicable',
      `matches, but only on: [${r.on.join(', ')}]: it alerts when the notice is updated`,
    );
  if (stored(n) && history) {
    const last = lastDecision(r.name, o);
    if (last) return no(r, 'not-applicable', `${last.decision} at ${last.at}: ${last.reason}`);
    const then = r.on.includes('updated')
      ? 'this one alerts only if it is updated'
      : 'with on: [new] it never alerts on this one';
    return no(r, 'not-in-force', notInForce(n, then));
  }
  const judged = stored(n) ? 'matches' : 'matches, judged as new (the notice is not stored)';
  const e = r.escalate;
  const source = e
    ? `${judged}; escalates to ${e.to.map(targetLabel).join(', ')} if nobody acknowledges it within ${formatDuration(e.afterMs)}`
    : judged;
  return {
    ...no(r, 'fires', source),
    fires: true,
    targets: r.notify.map(targetLabel),
    alert: {
      subject: `notice:${n.id}:v1`,
      payload: {
        version: 1,
        kind: 'notice',
        state: 'new',
        rule: r.name,
        pipeline: pipelineOf(n),
        zone: o.zone,
        notice: n,
      },
    },
  };
}
