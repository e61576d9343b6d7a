/**
 * Each rule's verdict on a notice, as the rules stand now, without writing anything:
 * what `pipewatch why` adds to the audit trail for rules that never saw the notice, and
 * what `pipewatch rules test` prints.
 */
import { formatDuration } from '../lib/duration.js';
import { prepareNotice } from '../rules/match.js';
import { type DeadlineRule, type NoticeRule, targetKey } from '../rules/types.js';
import type { Notice } from '../upstream/schemas.js';
import { isTerminal } from './reminders.js';
import type { CompiledRules } from './rules.js';

export interface Verdict {
  rule: string;
  kind: 'notices' | 'deadlines' | 'capacity';
  fires: boolean;
  /** Targets it would go to, when it fires. */
  targets: string[];
  reason: string;
}

/** How every rule would judge `notice` as a new notice at `now`. */
export function explainNotice(
  rules: CompiledRules,
  notice: Notice,
  now: Date,
  maxAlertAgeMs: number,
): Verdict[] {
  const posted = notice.posted_at ?? notice.service_created_at;
  const tooOld = posted !== null && Date.parse(posted) < now.getTime() - maxAlertAgeMs;
  const prepared = prepareNotice(notice);
  const verdicts: Verdict[] = [];
  for (const g of [...rules.notices.groups, ...rules.deadlines.groups]) {
    const mismatch = g.match(prepared);
    const excluded = mismatch === null && g.exclude?.(prepared) === null;
    for (const r of g.rules) {
      verdicts.push(judge(r, mismatch, excluded));
    }
  }
  function judge(
    r: NoticeRule | DeadlineRule,
    mismatch: string | null,
    excluded: boolean,
  ): Verdict {
    const base = { rule: r.name, kind: r.kind, targets: [] as string[] };
    if (mismatch !== null) return { ...base, fires: false, reason: `not matched on ${mismatch}` };
    if (excluded) return { ...base, fires: false, reason: 'excluded by its not: filter' };
    if (tooOld) {
      return {
        ...base,
        fires: false,
        reason: `too old: posted ${posted}, more than ${formatDuration(maxAlertAgeMs)} ago`,
      };
    }
    const targets = r.notify.map(targetKey);
    if (r.kind === 'notices') {
      if (!r.on.includes('new'))
        return { ...base, fires: false, reason: `matches, but only on: [${r.on.join(', ')}]` };
      return { ...base, fires: true, targets, reason: 'matches' };
    }
    const deadline = notice[r.field];
    if (deadline === null)
      return { ...base, fires: false, reason: `matches, but ${r.field} is empty` };
    if (isTerminal(notice))
      return {
        ...base,
        fires: false,
        reason: `matches, but the notice status is ${notice.status}`,
      };
    if (Date.parse(deadline) <= now.getTime()) {
      return { ...base, fires: false, reason: `matches, but ${r.field} ${deadline} has passed` };
    }
    const when = r.beforeMs.map((o) => `${formatDuration(o)} before`).join(', ');
    return { ...base, fires: true, targets, reason: `reminders ${when} ${r.field} ${deadline}` };
  }
  for (const c of rules.capacity) {
    verdicts.push({
      rule: c.rule.name,
      kind: 'capacity',
      fires: false,
      targets: [],
      reason: 'a capacity rule: not about notices',
    });
  }
  return verdicts;
}
