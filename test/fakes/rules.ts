/** Rules the decision tests share, as a rule file would give them. */
import type { DeadlineRule } from '../../src/rules/types.js';

/** Where a test's rules say they were written. */
export const ruleAt = { file: 'rules/test.yaml', line: 1, col: 1 };

/** Reminders by Slack DM one day and two hours before a Transco notice's `response_at`. */
export const dmReminders: DeadlineRule = {
  kind: 'deadlines',
  name: 'reminders',
  at: ruleAt,
  field: 'response_at',
  beforeMs: [86_400_000, 7_200_000],
  filter: { pipelines: ['transco'] },
  notify: [{ kind: 'slack_dm', user: 'scheduler@example.com' }],
};
