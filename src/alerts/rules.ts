/**
 * Rules compiled for deciding: filters compiled once, notice and deadline rules grouped
 * by identical filters (many people subscribe to the same thing; a group is judged once
 * per notice) and indexed by pipeline and type, capacity rules with compiled matchers.
 *
 * The list fields of a filter give the same verdict for every notice with the same
 * pipeline, type, category and status, and a feed has few such combinations; so each
 * combination is judged once against the index and remembered, and a notice pays only
 * for the groups that match it and for their text regexes.
 */
import {
  anyOf,
  type CompiledFilter,
  compileFilter,
  compileFilterParts,
  FilterIndex,
  type FilterParts,
  fieldsKey,
  type PreparedNotice,
  textListMatcher,
} from '../rules/match.js';
import type { CapacityRule, DeadlineRule, NoticeFilter, NoticeRule, Rule } from '../rules/types.js';

/** Notice or deadline rules sharing one filter and exclusion, ready to match. */
export interface RuleGroup<R extends NoticeRule | DeadlineRule> {
  rules: R[];
  filter: NoticeFilter;
  match: CompiledFilter;
  /** Returns null when the notice is excluded. */
  exclude?: CompiledFilter;
  parts: FilterParts;
  excludeParts?: FilterParts;
}

/** A group whose filter matches a notice, and whether its `not:` excludes the notice. */
export interface GroupMatch<R extends NoticeRule | DeadlineRule> {
  group: RuleGroup<R>;
  excluded: boolean;
}

/** The groups one combination of list fields matches, and their text filters as one pattern. */
interface Cached<R extends NoticeRule | DeadlineRule> {
  matches: CachedMatch<R>[];
  /** Null: fewer than two distinct text filters, or ones that cannot be combined. */
  anyText: RegExp | null;
}

interface CachedMatch<R extends NoticeRule | DeadlineRule> {
  group: RuleGroup<R>;
  /** The exclusion's list fields: `no` they differ, `yes` they match and it has no text, `text` its text decides. */
  exclusion: 'no' | 'yes' | 'text';
}

/** Remembered combinations, before the cache starts over (bounds memory on odd feeds). */
const CACHE_LIMIT = 50_000;

/** Rule groups by pipeline and type, with list-field verdicts remembered per combination. */
export class GroupIndex<R extends NoticeRule | DeadlineRule> {
  private readonly index: FilterIndex<RuleGroup<R>>;
  private readonly cache = new Map<string, Cached<R>>();

  constructor(readonly groups: readonly RuleGroup<R>[]) {
    this.index = new FilterIndex(groups);
  }

  /** Every group whose filter matches `n`, in rule order within each index bucket. */
  matches(n: PreparedNotice): GroupMatch<R>[] {
    const key = fieldsKey(n);
    let cached = this.cache.get(key);
    if (!cached) {
      const matches: CachedMatch<R>[] = [];
      const sources = new Set<string>();
      for (const group of this.index.candidates(n)) {
        if (group.parts.fields(n) !== null) continue;
        const ex = group.excludeParts;
        const exclusion = !ex || ex.fields(n) !== null ? 'no' : ex.text ? 'text' : 'yes';
        matches.push({ group, exclusion });
        if (group.parts.textSource !== undefined) sources.add(group.parts.textSource);
      }
      cached = { matches, anyText: anyOf([...sources]) };
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(key, cached);
    }
    // Most notices match none of the text filters: one pass says so for all of them.
    const { anyText } = cached;
    const textPossible =
      anyText === null || anyText.test(n.notice.subject) || anyText.test(n.notice.notice);
    const out: GroupMatch<R>[] = [];
    for (const { group, exclusion } of cached.matches) {
      if (group.parts.text && !(textPossible && group.parts.text(n))) continue;
      const excluded =
        exclusion === 'yes' || (exclusion === 'text' && group.excludeParts!.text!(n));
      out.push({ group, excluded });
    }
    return out;
  }
}

/** A capacity rule ready to match locations. */
export interface CompiledCapacityRule {
  rule: CapacityRule;
  pipeline: (slug: string) => boolean;
  location: (name: string, identifier: string) => boolean;
  flow: (flow: string) => boolean;
  cycle: (cycle: string) => boolean;
}

export interface CompiledRules {
  all: readonly Rule[];
  notices: GroupIndex<NoticeRule>;
  deadlines: GroupIndex<DeadlineRule>;
  deadlinesByName: ReadonlyMap<string, DeadlineRule>;
  capacity: CompiledCapacityRule[];
}

function group<R extends NoticeRule | DeadlineRule>(rules: readonly R[]): RuleGroup<R>[] {
  const groups = new Map<string, RuleGroup<R>>();
  for (const rule of rules) {
    const key = JSON.stringify([rule.filter, rule.not ?? null]);
    const existing = groups.get(key);
    if (existing) {
      existing.rules.push(rule);
      continue;
    }
    groups.set(key, {
      rules: [rule],
      filter: rule.filter,
      match: compileFilter(rule.filter),
      parts: compileFilterParts(rule.filter),
      ...(rule.not
        ? { exclude: compileFilter(rule.not), excludeParts: compileFilterParts(rule.not) }
        : {}),
    });
  }
  return [...groups.values()];
}

const always = () => true;

/** Compiles a rule set. */
export function compileRules(rules: readonly Rule[]): CompiledRules {
  const notices = group(rules.filter((r): r is NoticeRule => r.kind === 'notices'));
  const deadlines = rules.filter((r): r is DeadlineRule => r.kind === 'deadlines');
  const capacity = rules
    .filter((r): r is CapacityRule => r.kind === 'capacity')
    .map((rule): CompiledCapacityRule => {
      const locations = rule.locations ? textListMatcher(rule.locations) : undefined;
      return {
        rule,
        pipeline: rule.pipelines ? textListMatcher(rule.pipelines) : always,
        location: locations ? (name, id) => locations(name) || locations(id) : always,
        flow: rule.flow ? textListMatcher(rule.flow) : always,
        cycle: rule.cycles ? textListMatcher(rule.cycles) : always,
      };
    });
  return {
    all: rules,
    notices: new GroupIndex(notices),
    deadlines: new GroupIndex(group(deadlines)),
    deadlinesByName: new Map(deadlines.map((r) => [r.name, r])),
    capacity,
  };
}
