/**
 * A subscription or a silence in one line, as chat and the command line list them:
 * `transco, tgp · type: capacity constraint · on new`.
 */
import { formatDuration } from '../lib/duration.js';
import type { NoticeFilter, Rule } from '../rules/types.js';

function filterText(f: NoticeFilter): string[] {
  const parts = [f.pipelines ? f.pipelines.join(', ') : 'all pipelines'];
  if (f.types) parts.push(`type: ${f.types.join(', ')}`);
  if (f.categories) parts.push(`category: ${f.categories.join(', ')}`);
  if (f.statuses) parts.push(`status: ${f.statuses.join(', ')}`);
  if (f.text) parts.push(`text: /${f.text}/`);
  return parts;
}

/** What a rule watches, in one line. */
export function describeRule(rule: Rule): string {
  switch (rule.kind) {
    case 'notices':
      return [...filterText(rule.filter), `on ${rule.on.join(', ')}`].join(' · ');
    case 'deadlines': {
      const before = rule.beforeMs.map(formatDuration).join(', ');
      const what =
        rule.origin?.noticeId === undefined
          ? filterText(rule.filter).join(' · ')
          : `notice #${rule.origin.noticeId}`;
      return `reminders ${before} before ${rule.field} · ${what}`;
    }
    case 'capacity': {
      const where = rule.locations ? rule.locations.join(', ') : 'every location';
      const unit = rule.unit === 'percent' ? '% of OPC' : ' Dth';
      const cycles = rule.cycles ? ` · cycles: ${rule.cycles.join(', ')}` : '';
      return `OAC of ${(rule.pipelines ?? ['all pipelines']).join(', ')} at ${where} below ${rule.below.toLocaleString('en-US')}${unit} (clear above ${rule.clearAbove.toLocaleString('en-US')})${cycles}`;
    }
  }
}
