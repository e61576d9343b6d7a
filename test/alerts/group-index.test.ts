import { describe, expect, it } from 'vitest';
import { compileRules } from '../../src/alerts/rules.js';
import { anyOf, prepareNotice } from '../../src/rules/match.js';
import type { NoticeRule } from '../../src/rules/types.js';
import { makeNotice } from '../fakes/notice.js';

const FILTERS: Array<Pick<NoticeRule, 'filter' | 'not'>> = [
  { filter: {} },
  { filter: { pipelines: ['transco'] } },
  { filter: { pipelines: ['transco'], types: ['constraint'] } },
  { filter: { types: ['constraint'], text: 'station 16\\d' } },
  { filter: { types: ['constraint'], text: 'force majeure|OFO' } },
  { filter: { pipelines: ['texas-eastern'], text: '(ma)intenance \\1?' } },
  { filter: { categories: ['critical'], text: 'limited' }, not: { text: 'station 165' } },
  { filter: { statuses: ['initiate'] }, not: { statuses: ['initiate'], text: 'test' } },
  { filter: { pipelines: ['texas-eastern'], text: 'station' } },
];

const rules: NoticeRule[] = FILTERS.map((f, i) => ({
  kind: 'notices',
  name: `rule-${i}`,
  at: { file: 'test', line: i + 1, col: 1 },
  on: ['new'],
  notify: [{ kind: 'console' }],
  ...f,
}));

const notices = [
  makeNotice(),
  makeNotice({ id: 2, subject: 'Force Majeure at Station 210', notice: 'Unplanned outage.' }),
  makeNotice({ id: 3, subject: 'Capacity Constraint - Station 166', notice: 'This is a test.' }),
  makeNotice({
    id: 4,
    pipeline_slug: 'texas-eastern',
    subject: 'Maintenance',
    type: 'Maintenance',
  }),
  makeNotice({ id: 5, subject: 'station 12 st', notice: '', category: 'Non-Critical' }),
  makeNotice({ id: 6, subject: 'Capacity Constraint - Station 165', notice: 'Limited. OFO.' }),
];

describe('the rule index', () => {
  it('gives the verdicts of judging every rule on its own', () => {
    const compiled = compileRules(rules);
    // Twice: the second pass answers from the remembered combinations.
    for (let pass = 0; pass < 2; pass++) {
      for (const notice of notices) {
        const fast = compiled.notices
          .matches(prepareNotice(notice))
          .map((m) => [m.group.rules[0]!.name, m.excluded]);
        const slow = compiled.notices.groups
          .filter((g) => g.match(prepareNotice(notice)) === null)
          .map((g) => [g.rules[0]!.name, g.exclude?.(prepareNotice(notice)) === null]);
        expect(fast.sort(), `notice ${notice.id}`).toEqual(slow.sort());
      }
    }
  });
});

describe('anyOf', () => {
  it('matches where one of the patterns would, case-insensitively', () => {
    const re = anyOf(['station 16\\d', 'force majeure|OFO'])!;
    expect(re.test('STATION 165')).toBe(true);
    expect(re.test('an ofo today')).toBe(true);
    expect(re.test('station 170')).toBe(false);
  });

  it('leaves out patterns that change meaning when combined', () => {
    expect(anyOf(['(a)\\1', 'b'])).toBeNull();
    expect(anyOf(['(?<x>a)', 'b'])).toBeNull();
    expect(anyOf(['only one'])).toBeNull();
  });
});
