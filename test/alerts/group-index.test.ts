import { describe, expect, it } from 'vitest';
import { compileRules, extendRules } from '../../src/alerts/rules.js';
import { prepareNotice } from '../../src/rules/match.js';
import { compilePattern, PatternSet, TEXT_LIMIT } from '../../src/rules/pattern.js';
import type { NoticeRule } from '../../src/rules/types.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { makeNotice } from '../fakes/notice.js';

const FILTERS: Array<Pick<NoticeRule, 'filter' | 'not'>> = [
  { filter: {} },
  { filter: { pipelines: ['transco'] } },
  { filter: { pipelines: ['transco'], types: ['constraint'] } },
  { filter: { types: ['constraint'], text: 'station 16\\d' } },
  { filter: { types: ['constraint'], text: 'force majeure|OFO' } },
  { filter: { pipelines: ['texas-eastern'], text: '(?<m>ma)intenance( work)?' } },
  { filter: { categories: ['critical'], text: 'limited' }, not: { text: 'station 165' } },
  { filter: { statuses: ['initiate'] }, not: { statuses: ['initiate'], text: 'test' } },
  { filter: { pipelines: ['texas-eastern'], text: 'station' } },
  // Each of these would change meaning, or break, inside one alternation of all patterns.
  { filter: { types: ['constraint'], text: '(?<m>station) 12' } },
  { filter: { types: ['constraint'], text: '\\Qstation 165' } },
  { filter: { text: '^capacity' }, not: { text: 'limited\\.$' } },
  { filter: { text: 'force\\s+majeure' } },
  { filter: { text: 'tail end$' } },
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
  makeNotice({ id: 7, subject: 'FORCE\u00a0MAJEURE', notice: 'Capacity limited.' }),
  // The bound: what comes after the first TEXT_LIMIT characters is not read.
  makeNotice({ id: 8, subject: 'Update', notice: `${'x'.repeat(TEXT_LIMIT)} force majeure` }),
  makeNotice({ id: 9, subject: 'Update', notice: `${'x'.repeat(TEXT_LIMIT - 8)}tail end` }),
  makeNotice({ id: 10, subject: 'Update', notice: `${'x'.repeat(TEXT_LIMIT - 7)}tail end` }),
];

/** The index's verdicts on a notice, and those of judging every group on its own. */
function verdicts(rulesOf: readonly NoticeRule[], notice: Notice) {
  const compiled = compileRules(rulesOf);
  const fast = compiled.notices
    .matches(prepareNotice(notice))
    .map((m) => [m.group.rules[0]!.name, m.excluded]);
  const slow = compiled.notices.groups
    .filter((g) => g.match(prepareNotice(notice)) === null)
    .map((g) => [g.rules[0]!.name, g.exclude?.(prepareNotice(notice)) === null]);
  return { fast: fast.sort(), slow: slow.sort() };
}

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

  it('agrees with judging rule by rule on random rule sets, the patterns judged together', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 40; round++) {
      const some = Array.from({ length: 2 + random(8) }, () => rules[random(rules.length)]!);
      const picked = [...new Set(some)];
      for (const notice of notices) {
        const { fast, slow } = verdicts(picked, notice);
        expect(fast, `round ${round}, notice ${notice.id}`).toEqual(slow);
      }
    }
  });

  it('extended by rules after its own, judges as one compiled with them all', () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    /** Each notice's matches, in order, by rule names, after notices were judged. */
    const judged = (compiled: ReturnType<typeof compileRules>) =>
      notices.map((n) =>
        compiled.notices
          .matches(prepareNotice(n))
          .map((m) => [m.group.rules.map((r) => r.name), m.excluded]),
      );
    for (let round = 0; round < 20; round++) {
      const all = Array.from({ length: 4 + random(12) }, (_, i) => ({
        ...rules[random(rules.length)]!,
        name: `sub-${i}`,
      }));
      const split = 1 + random(all.length - 1);
      const first = compileRules(all.slice(0, split));
      // Judged first, so that what it remembered must give way to the rules added.
      judged(first);
      const extended = extendRules(first, all.slice(split));
      const whole = compileRules(all);
      expect(extended.all).toEqual(whole.all);
      expect(judged(extended), `round ${round}`).toEqual(judged(whole));
      expect(extended.notices.groups.map((g) => g.rules.map((r) => r.name))).toEqual(
        whole.notices.groups.map((g) => g.rules.map((r) => r.name)),
      );
    }
  });

  it('reads the first TEXT_LIMIT characters of the text: a match there fires, one after does not', () => {
    const names = (id: number) =>
      compileRules(rules)
        .notices.matches(prepareNotice(notices.find((n) => n.id === id)!))
        .map((m) => m.group.rules[0]!.name);
    expect(names(8)).not.toContain('rule-4');
    expect(names(8)).not.toContain('rule-12');
    expect(names(9)).toContain('rule-13');
    expect(names(10)).not.toContain('rule-13');
  });
});

describe('PatternSet', () => {
  const CORPUS = [
    'station 16\\d',
    'force majeure|OFO',
    '(?<m>ma)intenance',
    '(?<m>station) 12',
    '\\Qa+(',
    '^capacity',
    'limited\\.$',
    'force\\s+majeure',
    '[[:digit:]]{3}',
    '(?i)été',
    'é\\w',
    'a|',
  ];
  const TEXTS = [
    'Capacity Constraint - Station 165',
    'an OFO today',
    'Maintenance work',
    'a+( literally',
    'aa',
    'Limited.',
    'FORCE\u00a0MAJEURE',
    'ÉTÉ',
    '',
    'STATION 12',
  ];

  it('says which patterns match, as each pattern on its own does', () => {
    for (let size = 2; size <= CORPUS.length; size++) {
      for (let start = 0; start + size <= CORPUS.length; start++) {
        const sources = CORPUS.slice(start, start + size);
        const set = PatternSet.of(sources)!;
        for (const text of TEXTS) {
          const alone = sources.flatMap((s, i) => (compilePattern(s).test(text) ? [i] : []));
          expect(set.match(Buffer.from(text)), `${JSON.stringify(sources)} on ${text}`).toEqual(
            alone,
          );
        }
      }
    }
  });

  it('keeps each pattern to itself: a group name in two, \\Q without \\E', () => {
    const set = PatternSet.of(['(?<x>a)b', '(?<x>c)d', '\\Qe+(', 'f'])!;
    expect(set.match('ab cd')).toEqual([0, 1]);
    expect(set.match('ad')).toEqual([]);
    expect(set.match('e+(')).toEqual([2]);
    expect(set.match('ee f')).toEqual([3]);
  });

  it('is left out for fewer than two patterns', () => {
    expect(PatternSet.of(['only one'])).toBeNull();
    expect(PatternSet.of([])).toBeNull();
  });
});
