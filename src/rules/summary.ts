/**
 * A rule in one line, as `subs list`, chat's `list` and the App Home show it:
 * `transco; type constraint; on new, updated; escalate after 30m to pagerduty:…9a1b`,
 * `texas-eastern; response_at 1d, 2h before`,
 * `transco STATION 85; OAC below 50000 Dth (clear above 55000 Dth)`. One line whatever
 * was typed: a pattern's line breaks are shown as `\r` and `\n`, which read as the same
 * pattern.
 */
import { targetLabel } from '../domain/targets.js';
import { formatDuration } from '../lib/duration.js';
import { inlineText } from '../lib/terminal.js';
import type { NoticeFilter, Rule } from './types.js';

function filterParts(f: NoticeFilter): string[] {
  const parts: string[] = [];
  if (f.types) parts.push(`type ${f.types.join(', ')}`);
  if (f.categories) parts.push(`category ${f.categories.join(', ')}`);
  if (f.statuses) parts.push(`status ${f.statuses.join(', ')}`);
  if (f.text) parts.push(`text /${f.text}/`);
  return parts;
}

/** A `not:` filter: `not (tetco; type maintenance)`. */
function notPart(f: NoticeFilter): string {
  return `not (${[...(f.pipelines ? [f.pipelines.join(', ')] : []), ...filterParts(f)].join('; ')})`;
}

const pipelinesOf = (list: readonly string[] | undefined) =>
  list ? list.join(', ') : 'every pipeline';

/**
 * What a rule matches, in one line: `transco; type constraint; on new, updated`,
 * `texas-eastern; response_at 1d, 2h before`, `transco STATION 85 OAC below 50000 Dth`.
 */
export function ruleSummary(rule: Rule): string {
  return inlineText(summaryOf(rule));
}

function summaryOf(rule: Rule): string {
  switch (rule.kind) {
    case 'notices': {
      const parts = [pipelinesOf(rule.filter.pipelines), ...filterParts(rule.filter)];
      if (rule.not) parts.push(notPart(rule.not));
      if (rule.on.join() !== 'new') parts.push(`on ${rule.on.join(', ')}`);
      const e = rule.escalate;
      if (e)
        parts.push(
          `escalate after ${formatDuration(e.afterMs)} to ${e.to.map(targetLabel).join(', ')}`,
        );
      return parts.join('; ');
    }
    case 'deadlines': {
      const noticeId = rule.origin?.noticeId;
      const parts = [
        noticeId === undefined ? pipelinesOf(rule.filter.pipelines) : `notice #${noticeId}`,
        ...(noticeId === undefined ? filterParts(rule.filter) : []),
        `${rule.field} ${rule.beforeMs.map(formatDuration).join(', ')} before`,
      ];
      if (rule.not) parts.push(notPart(rule.not));
      return parts.join('; ');
    }
    case 'capacity': {
      const unit = rule.unit === 'percent' ? '% of OPC' : ' Dth';
      const parts = [
        [pipelinesOf(rule.pipelines), ...(rule.locations ?? [])].join(' '),
        `OAC below ${rule.below}${unit} (clear above ${rule.clearAbove}${unit})`,
      ];
      if (rule.cycles) parts.push(`cycles ${rule.cycles.join(', ')}`);
      if (rule.flow) parts.push(`flow ${rule.flow.join(', ')}`);
      if (rule.repeatEveryMs) parts.push(`again every ${formatDuration(rule.repeatEveryMs)}`);
      return parts.join('; ');
    }
  }
}
