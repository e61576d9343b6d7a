/**
 * Subscriptions as text: what one matches in a line (`subs list`), and all of them as one
 * rule file (`subs export`) that `rules validate` accepts, so that subscriptions made in
 * chat can be moved into version-controlled rule files.
 */
import { stringify } from 'yaml';
import { formatDuration } from '../lib/duration.js';
import { subscriptionLabel, subscriptionName, subscriptionRule } from '../rules/subscription.js';
import type { NoticeFilter, Rule } from '../rules/types.js';
import type { SubscriptionRow } from '../store/subscriptions.js';

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
  switch (rule.kind) {
    case 'notices': {
      const parts = [pipelinesOf(rule.filter.pipelines), ...filterParts(rule.filter)];
      if (rule.not) parts.push(notPart(rule.not));
      if (rule.on.join() !== 'new') parts.push(`on ${rule.on.join(', ')}`);
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

/** The name an exported subscription takes in a rule file: `sub-12` is kept for subscriptions. */
export function exportedName(id: number): string {
  return `subscription-${id}`;
}

/** Why a subscription is exported as a comment rather than a rule; undefined when it is a rule. */
function leftOut(row: SubscriptionRow): string | undefined {
  const rule = subscriptionRule(row);
  if (!('kind' in rule)) return `not valid any more (${rule.message})`;
  if (row.notice_id !== null)
    return `a reminder for notice #${row.notice_id} only, which a rule file cannot say`;
  if (row.paused_at !== null)
    return `paused since ${row.paused_at}${row.paused_reason ? ` (${row.paused_reason})` : ''}`;
  return undefined;
}

const indent = (text: string, prefix: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => `${prefix}${l}`)
    .join('\n');

/**
 * Every subscription as one rule file: each one's stored rule item, named
 * `subscription-<id>`, under a comment saying where it came from. Those a rule file
 * would get wrong (paused, a reminder for one notice, no longer valid) are kept as
 * comments, so nothing is silently lost and nothing starts alerting that did not.
 */
export function exportRuleFile(rows: readonly SubscriptionRow[], at: string): string {
  const lines = [
    `# pipewatch subscriptions, exported ${at} by 'pipewatch subs export'.`,
    `# Each is named subscription-<id>: names such as sub-12 are kept for subscriptions.`,
    '# Put in force alongside the subscriptions, each would alert twice: remove them',
    "# ('pipewatch subs rm ID') once this file is in the rules directory.",
  ];
  const items = rows.map((row) => {
    const item = stringify([{ name: exportedName(row.id), ...row.rule }], { lineWidth: 0 });
    const source = `# ${subscriptionName(row.id)}: ${subscriptionLabel(row)}`;
    const why = leftOut(row);
    if (why === undefined)
      return { active: true, text: `${indent(source, '  ')}\n${indent(item, '  ')}` };
    const note = `# left out as a comment: ${why}`;
    return {
      active: false,
      text: `${indent(`${source}\n${note}`, '  ')}\n${indent(item, '  # ')}`,
    };
  });
  if (rows.length === 0) lines.push('# There are no subscriptions.');
  lines.push(items.some((i) => i.active) ? 'rules:' : 'rules: []');
  for (const i of items) lines.push(i.text);
  return `${lines.join('\n')}\n`;
}
