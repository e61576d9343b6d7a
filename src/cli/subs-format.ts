/**
 * Subscriptions as text: what one matches in a line (`subs list`), and all of them as one
 * rule file (`subs export`) that `rules validate` accepts, so that subscriptions made in
 * chat can be moved into version-controlled rule files.
 */
import { stringify } from 'yaml';
import { subscriptionLabel, subscriptionName, subscriptionRule } from '../rules/subscription.js';
import type { SubscriptionRow } from '../store/subscriptions.js';

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
