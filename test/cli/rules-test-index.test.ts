/**
 * `rules test` judges each notice only by the rules its list fields can match (the
 * index), and counts the rest by combination: over generated rules (rule files' and
 * subscriptions', reminders for one notice among them) and generated notices (stored,
 * with an audit trail, and not), every notice gets exactly the verdicts, in the same
 * order and with the same reasons, as judging every rule in turn gives; and the summary
 * counts the same.
 */
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/alerts/explain.js';
import { compileRules } from '../../src/alerts/rules.js';
import { Tally } from '../../src/cli/rules-test-output.js';
import {
  judgeNotice,
  NoticeJudge,
  type SubscriptionVerdictOptions,
} from '../../src/cli/subscription-verdicts.js';
import type { DeadlineField, NoticeFilter, Rule } from '../../src/rules/types.js';
import type { AuditEntry } from '../../src/store/audit.js';
import type { StoredNotice } from '../../src/store/notices.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { makeNotice } from '../fakes/notice.js';
import { seededRandom } from '../support/seeded-random.js';

const NOW = new Date('2026-11-20T15:00:00Z');

/** Values of notices: a pipeline whose name has two words among them. */
const PIPELINES = ['transco', 'anr', 'texas-eastern', 'Gulf South', 'tennessee'];
const TYPES = [
  'Capacity Constraint',
  'Maintenance',
  'Force Majeure',
  'Operational Flow Order',
  'Non-Critical Maintenance',
  'Other',
  '',
];
const CATEGORIES = ['Critical', 'Non-Critical', 'CRITICAL', ''];
const STATUSES = ['Initiate', 'Supersede', 'Terminate', 'SUPERSEDE', ''];
const SUBJECTS = [
  'Capacity Constraint - Station 165',
  'Force Majeure at Leidy',
  'OFO issued',
  'Routine maintenance',
];

/** Entries of rules: whole values, words of values, and words of none. */
const ENTRIES: Record<keyof Omit<NoticeFilter, 'text'>, string[]> = {
  pipelines: ['transco', 'anr', 'texas-eastern', 'gulf', 'south', 'gulf south', 'columbia'],
  types: ['constraint', 'capacity constraint', 'maintenance', 'force majeure', 'flow order'],
  categories: ['critical', 'non-critical'],
  statuses: ['initiate', 'supersede', 'terminate'],
};
const TEXTS = ['station \\d+', 'force majeure|ofo', 'leidy', 'nothing like this'];

function generate(seed: number) {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const some = (list: readonly string[]) => [
    ...new Set(Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(list))),
  ];
  const filter = (density: number): NoticeFilter => {
    const f: NoticeFilter = {};
    for (const field of Object.keys(ENTRIES) as Array<keyof typeof ENTRIES>)
      if (random() < density) f[field] = some(ENTRIES[field]);
    if (random() < density / 3) f.text = pick(TEXTS);
    return f;
  };
  const at = { file: 'generated', line: 1, col: 1 };
  const notify = [{ kind: 'console' as const }];
  const instant = (hours: number) =>
    new Date(NOW.getTime() + hours * 3_600_000).toISOString().replace('.000', '');

  const notices: Array<Notice | StoredNotice> = [];
  for (let id = 1; id <= 200; id++) {
    const posted = instant(-Math.floor(random() * 72));
    const n = makeNotice({
      id,
      pipeline_slug: pick(PIPELINES),
      type: pick(TYPES),
      category: pick(CATEGORIES),
      status: pick(STATUSES),
      subject: pick(SUBJECTS),
      notice: random() < 0.3 ? 'Force majeure declared at Station 12.' : 'Limited.',
      posted_at: posted,
      response_at: random() < 0.4 ? instant(Math.floor(random() * 48) - 12) : null,
    });
    if (random() < 0.5) notices.push(n);
    else
      notices.push({
        ...n,
        content_hash: `h${id}`,
        version: 1,
        first_seen_at: posted,
        last_seen_at: posted,
        last_changed_at: instant(-Math.floor(random() * 48)),
        baseline: random() < 0.5,
      });
  }

  const rules: Rule[] = [];
  for (let i = 0; i < 400; i++) {
    const origin =
      random() < 0.5
        ? {
            origin: {
              subscription: i,
              label: `cli by someone, sub ${i}`,
              createdAt: instant(-Math.floor(random() * 96)),
              ...(random() < 0.05 ? { noticeId: 1 + Math.floor(random() * 200) } : {}),
            },
          }
        : {};
    const not = random() < 0.2 ? { not: filter(0.5) } : {};
    const name = origin.origin ? `sub-${i}` : `rule-${i}`;
    if (random() < 0.8)
      rules.push({
        kind: 'notices',
        name,
        at,
        notify,
        filter: filter(0.6),
        ...not,
        on: random() < 0.2 ? ['new', 'updated'] : random() < 0.1 ? ['updated'] : ['new'],
        ...origin,
      });
    else
      rules.push({
        kind: 'deadlines',
        name,
        at,
        notify,
        field: pick<DeadlineField>(['response_at', 'effective_at', 'end_at']),
        beforeMs: [24 * 3_600_000, 2 * 3_600_000],
        filter: filter(0.5),
        ...not,
        ...origin,
      });
  }
  // Identical filters share a group: the same rule written twice under other names.
  for (const r of rules.slice(0, 30)) rules.push({ ...r, name: `${r.name}-again` });

  /** A stored notice's trail: some rules decided, some held back by a silence. */
  const history = (n: StoredNotice) => {
    const audit: AuditEntry[] = [];
    for (let k = 0; k < 4; k++) {
      const muted = random() < 0.5;
      audit.push({
        at: n.first_seen_at,
        rule: pick(rules).name,
        event: 'notice-new',
        subject: `notice:${n.id}`,
        notice_id: n.id,
        decision: muted ? 'muted' : 'suppressed',
        reason: muted ? `muted by silence #${k + 1}` : 'excluded by its not: filter',
      });
    }
    return { audit, outbox: [], reminders: [] };
  };
  const options = (n: Notice | StoredNotice): SubscriptionVerdictOptions => ({
    now: NOW,
    maxAlertAgeMs: 48 * 3_600_000,
    zone: 'America/New_York',
    silences: [],
    ...('baseline' in n ? { history: history(n) } : {}),
  });
  return { notices, rules, options };
}

/** The summary as counting every verdict of every notice gives it. */
function countedByHand(all: Verdict[][]) {
  const byRule = new Map<
    string,
    {
      rule: string;
      kind: string;
      outcomes: Record<string, number>;
      not_matched: Record<string, number>;
    }
  >();
  for (const verdicts of all)
    for (const v of verdicts) {
      let s = byRule.get(v.rule);
      if (!s) {
        s = { rule: v.rule, kind: v.kind, outcomes: {}, not_matched: {} };
        byRule.set(v.rule, s);
      }
      s.outcomes[v.outcome] = (s.outcomes[v.outcome] ?? 0) + 1;
      const field = /\bnot matched on (\w+)/.exec(v.reason)?.[1];
      if (v.outcome === 'not-matched' && field)
        s.not_matched[field] = (s.not_matched[field] ?? 0) + 1;
    }
  return [...byRule.values()].map((s) => ({ ...s, can_never_match: false, never_matches: [] }));
}

describe('rules test through the index', () => {
  for (const seed of [1, 2, 3]) {
    it(`gives every notice the verdicts of judging each rule in turn, and counts them alike (seed ${seed})`, () => {
      const { notices, rules, options } = generate(seed);
      const compiled = compileRules(rules);
      const judge = new NoticeJudge(compiled);
      const tally = new Tally(judge);
      const everyVerdict: Verdict[][] = [];
      let judged = 0;
      for (const n of notices) {
        const o = options(n);
        const expected = judgeNotice(compiled, n, o);
        const indexed = judge.judge(n, o);
        expect(indexed.every(), `notice ${n.id}`).toEqual(expected);
        // What is listed of a notice among many: all but the rules it does not match.
        expect(indexed.judged.filter((v) => v.outcome !== 'not-matched')).toEqual(
          expected.filter((v) => v.outcome !== 'not-matched'),
        );
        judged += indexed.judged.length;
        tally.add({ notice: n, stored: 'baseline' in n, ...indexed });
        everyVerdict.push(expected);
      }
      // The index spared most of the judging.
      expect(judged).toBeLessThan(everyVerdict.flat().length / 2);
      expect(tally.summary([])).toEqual(countedByHand(everyVerdict));
    });
  }
});
