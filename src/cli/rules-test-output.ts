/**
 * What `rules test` prints: per notice, each rule's verdict (one line, starting with what
 * the daemon does); the capacity rules over the latest stored cycles; a summary per rule
 * by outcome (the JSON form is rules-test-json.ts). Each notice is written as soon as it is judged and then only
 * counted, so any number of notices is reported in the same memory.
 */

import { OUTCOME_LABELS, type Outcome, type Verdict, verdictLine } from '../alerts/explain.js';
import type { CapacityJudgement } from '../alerts/explain-capacity.js';
import type { Combination } from '../alerts/explain-index.js';
import { type NeverMatch, neverMatchText } from '../alerts/never-match.js';
import { oneLine } from '../channels/text.js';
import type { UtcIso } from '../lib/time.js';
import { counted } from '../lib/words.js';
import type { Mismatch } from '../rules/match.js';
import type { StoredNotice } from '../store/notices.js';
import type { Notice } from '../upstream/schemas.js';
import type { CliContext } from './context.js';
import { clip } from './format.js';
import type { RuleNames } from './rule-sources.js';
import { type Renderer, renderedText } from './rules-test-render.js';
import type { JudgedNotice, NoticeJudge } from './subscription-verdicts.js';

/** One notice and the verdicts of the notice and deadline rules on it. */
export interface NoticeReport extends JudgedNotice {
  notice: Notice | StoredNotice;
  stored: boolean;
}

/** What was judged. */
export interface TestScope {
  now: UtcIso;
  source: 'stored' | 'file';
  file: string | null;
  /** The `--since` window, for stored notices without `--notice`. */
  since: string | null;
  /** One notice: every verdict is listed and no summary is printed. */
  single: boolean;
}

/** One rule's verdicts counted by outcome. */
export interface RuleSummary {
  rule: string;
  kind: Verdict['kind'];
  outcomes: Partial<Record<Outcome, number>>;
  /** Not matched, by the filter field that failed. */
  not_matched: Record<string, number>;
  /** Capacity rules: locations judged that are neither below the threshold nor in an episode. */
  at_or_above?: number;
  /** Nothing the rule names exists (its pipelines, or its locations): it never fires. */
  can_never_match: boolean;
  /** Each pipeline or location it names that the API does not have, with the one meant. */
  never_matches: string[];
}

/** How rules are named in the output: subscriptions with their label, and each rule's source. */
export interface ShownRules {
  names: RuleNames;
  /** Rule name → `rules/gas.yaml:3:5` or a subscription's label. */
  sources: ReadonlyMap<string, string>;
  /** Rules naming a pipeline or a location the API does not have. */
  never: ReadonlyMap<string, NeverMatch>;
}

/** The fields a filter fails on, in the order it checks them. */
const MISMATCHES: readonly Mismatch[] = ['pipelines', 'types', 'categories', 'statuses', 'text'];

/** `counts` with its keys in `order` (any other after them), whatever order they were counted in. */
function inOrder<K extends string>(
  counts: Partial<Record<K, number>>,
  order: readonly string[],
): Partial<Record<K, number>> {
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  const keys = (Object.keys(counts) as K[]).sort((a, b) => rank(a) - rank(b));
  return Object.fromEntries(keys.map((k) => [k, counts[k]])) as Partial<Record<K, number>>;
}

/** Outcomes worth listing a notice for when many are judged; the rest are only counted. */
const LISTED: ReadonlySet<Outcome> = new Set(['fires', 'scheduled', 'alerted', 'not-in-force']);

/**
 * Counts every verdict by rule and outcome as the notices are judged one by one, and how
 * many notices there were: the summary is exact however many are judged. A notice's
 * rules not matched on a list field are the same for every notice of its combination:
 * they are counted once per combination, with how many notices it had, at the end.
 */
export class Tally {
  private readonly byRule = new Map<string, RuleSummary>();
  /** Notices judged so far. */
  notices = 0;
  /** Notices by combination of list fields. */
  private readonly combinations = new Map<Combination, number>();

  /** `judge`: what the notices are judged with, which knows each combination's misses. */
  constructor(private readonly judge: NoticeJudge) {}

  private entry(v: Pick<Verdict, 'rule' | 'kind'>): RuleSummary {
    let s = this.byRule.get(v.rule);
    if (!s) {
      s = {
        rule: v.rule,
        kind: v.kind,
        outcomes: {},
        not_matched: {},
        can_never_match: false,
        never_matches: [],
      };
      this.byRule.set(v.rule, s);
    }
    return s;
  }

  /** Counts one notice's verdicts. */
  add({ judged, combination }: NoticeReport): void {
    // Every rule is listed in the order a notice's verdicts come, the first notice's.
    if (this.notices === 0)
      for (const g of this.judge.explainer.groups)
        for (const r of g.rules) this.entry({ rule: r.name, kind: r.kind });
    this.notices++;
    this.combinations.set(combination, (this.combinations.get(combination) ?? 0) + 1);
    for (const v of judged) {
      const s = this.entry(v);
      s.outcomes[v.outcome] = (s.outcomes[v.outcome] ?? 0) + 1;
      const field = /\bnot matched on (\w+)/.exec(v.reason)?.[1];
      if (v.outcome === 'not-matched' && field)
        s.not_matched[field] = (s.not_matched[field] ?? 0) + 1;
    }
  }

  /** The rules each combination's notices missed on a list field, counted in. */
  private countMisses(): void {
    for (const [group, field, notices] of this.judge.explainer.missCounts(this.combinations))
      for (const r of group.rules) {
        const s = this.entry({ rule: r.name, kind: r.kind });
        s.outcomes['not-matched'] = (s.outcomes['not-matched'] ?? 0) + notices;
        s.not_matched[field] = (s.not_matched[field] ?? 0) + notices;
      }
    this.combinations.clear();
  }

  /** The summary per rule, capacity rules and rules that can never match included. */
  summary(
    capacity: readonly CapacityJudgement[],
    never: ReadonlyMap<string, NeverMatch> = new Map(),
  ): RuleSummary[] {
    this.countMisses();
    for (const c of capacity) {
      const s = this.entry({ rule: c.rule, kind: 'capacity' });
      for (const v of c.verdicts) s.outcomes[v.outcome] = (s.outcomes[v.outcome] ?? 0) + 1;
      s.at_or_above = c.locations - c.verdicts.length;
    }
    for (const [rule, n] of never) {
      const s = this.entry({ rule, kind: n.kind });
      s.can_never_match = n.whole;
      s.never_matches = [...n.reasons];
    }
    return [...this.byRule.values()].map((s) => ({
      ...s,
      outcomes: inOrder(s.outcomes, Object.keys(OUTCOME_LABELS)),
      not_matched: inOrder(s.not_matched, MISMATCHES) as Record<string, number>,
    }));
  }
}

/** Writes the report as the notices are judged: each notice, then the end. */
export interface ReportWriter {
  notice(r: NoticeReport): void;
  end(capacity: readonly CapacityJudgement[], tally: Tally): void;
}

function summaryLine(s: RuleSummary, shown: ShownRules): string {
  const parts: string[] = [];
  const always: Outcome = s.kind === 'capacity' ? 'next-cycle' : 'fires';
  for (const outcome of Object.keys(OUTCOME_LABELS) as Outcome[]) {
    const n = s.outcomes[outcome] ?? 0;
    if (n === 0 && outcome !== always) continue;
    const fields = Object.entries(s.not_matched)
      .sort((a, b) => b[1] - a[1])
      .map(([f, c]) => `${f} ${c}`)
      .join(', ');
    const detail = outcome === 'not-matched' && fields ? ` (${fields})` : '';
    parts.push(`${OUTCOME_LABELS[outcome]} ${n}${detail}`);
  }
  const never = shown.never.get(s.rule);
  if (s.at_or_above !== undefined && !never?.whole)
    parts.push(`at or above the threshold ${s.at_or_above}`);
  if (never) parts.push(neverMatchText(never));
  return `  ${shown.names.show(s.rule)}: ${parts.join(' · ')}`;
}

function header(r: NoticeReport, scope: TestScope): string[] {
  const n = r.notice;
  const lines = [
    `#${n.id} ${n.pipeline_slug} ${n.posted_at ?? '-'} ${clip(oneLine(n.subject), 70)}`,
  ];
  if (!scope.single) return lines;
  if ('baseline' in n)
    lines.push(
      `  stored: first seen ${n.first_seen_at}, version ${n.version}${n.baseline ? ', by the baseline' : ''}`,
    );
  else lines.push(`  from ${scope.file}: not stored, so judged as new`);
  return lines;
}

/** The report for people. */
export class TextReport implements ReportWriter {
  private listed = 0;

  constructor(
    private readonly ctx: CliContext,
    private readonly scope: TestScope,
    private readonly renderer: Renderer | undefined,
    private readonly shown: ShownRules,
  ) {}

  notice(r: NoticeReport): void {
    const { ctx, scope, renderer, shown } = this;
    const verdicts = scope.single ? r.every() : r.judged.filter((v) => v.outcome !== 'not-matched');
    if (!scope.single && !verdicts.some((v) => LISTED.has(v.outcome))) return;
    this.listed++;
    for (const line of header(r, scope)) ctx.out(line);
    for (const v of verdicts) {
      ctx.out(`  ${shown.names.line(v.rule, verdictLine(v))}`);
      for (const m of renderer?.verdict(v) ?? []) ctx.out(renderedText(m));
    }
  }

  end(capacity: readonly CapacityJudgement[], tally: Tally): void {
    const { ctx, scope, renderer, shown } = this;
    for (const c of capacity) {
      const cycles = c.cycles.map((x) => `${x.pipeline} ${x.cycle} ${x.gas_day}`).join(', ');
      ctx.out(
        `\n${shown.names.show(c.rule)} (capacity ${c.threshold}; latest stored cycles: ${cycles || 'none'}):`,
      );
      const never = shown.never.get(c.rule);
      if (never) ctx.out(`  ${neverMatchText(never)}`);
      // A rule that can never match finds nothing: the counts would only hide why.
      const told = !never?.whole;
      if (told && c.cycles.length === 0) ctx.out('  no stored cycle of its pipelines and cycles');
      else if (told && c.verdicts.length === 0)
        ctx.out(`  nothing below the threshold (${counted(c.locations, 'location')})`);
      for (const v of c.verdicts) {
        const where = `${v.pipeline} ${v.location}${v.identifier ? ` (${v.identifier})` : ''}`;
        ctx.out(
          `  ${where}: ${v.fires ? `${OUTCOME_LABELS[v.outcome]} → ${v.targets.join(', ')}: ` : 'no: '}${v.reason}`,
        );
      }
      for (const m of renderer?.capacity(c.rule, c.alerts) ?? []) ctx.out(renderedText(m, '  '));
    }
    const summary = tally.summary(capacity, shown.never);
    if (scope.single) {
      for (const [rule, n] of shown.never)
        if (n.kind !== 'capacity') ctx.out(`\n${shown.names.show(rule)}: ${neverMatchText(n)}`);
      return;
    }
    const what =
      scope.source === 'file'
        ? `${counted(tally.notices, 'notice')} from ${scope.file}, judged as new`
        : `${counted(tally.notices, 'notice')} posted in the last ${scope.since}`;
    const hidden = tally.notices - this.listed;
    ctx.out(
      `\n${what}, at ${scope.now}${hidden > 0 ? ` (${hidden} with nothing to show are only counted)` : ''}:`,
    );
    for (const s of summary) ctx.out(summaryLine(s, shown));
  }
}
