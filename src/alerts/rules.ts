/**
 * Rules compiled for deciding: filters compiled once, notice and deadline rules grouped
 * by identical filters (many people subscribe to the same thing; a group is judged once
 * per notice) and indexed by pipeline and type, capacity rules with compiled matchers.
 *
 * The list fields of a filter give the same verdict for every notice with the same
 * pipeline, type, category and status, and a feed has few such combinations; so each
 * combination is judged once against the index and remembered, and a notice pays only
 * for the groups that match it and for one pass of their text patterns, all together,
 * over its subject and over its text.
 */
import {
  type CompiledFilter,
  compileFilterParts,
  FilterIndex,
  type FilterParts,
  fieldsKey,
  joinParts,
  matchingPatterns,
  type PreparedNotice,
  type TextFilter,
  textListMatcher,
} from '../rules/match.js';
import { PatternSet } from '../rules/pattern.js';
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

/** The groups one combination of list fields matches, and their text filters as one set. */
interface Cached<R extends NoticeRule | DeadlineRule> {
  matches: CachedMatch<R>[];
  /** Every text filter those groups may read, theirs and their exclusions'; null: fewer than two. */
  texts: PatternSet | null;
}

interface CachedMatch<R extends NoticeRule | DeadlineRule> {
  group: RuleGroup<R>;
  /** The exclusion's list fields: `no` they differ, `yes` they match and it has no text; else its text decides. */
  exclusion: 'no' | 'yes' | TextFilter;
  /** The indexes of the group's text filter and of its exclusion's in the combination's set. */
  text?: number | undefined;
  excludeText?: number | undefined;
}

/** A text filter's verdict: from the set's one pass when it had one, else on its own. */
function judge(
  text: TextFilter,
  index: number | undefined,
  hits: number[] | null,
  n: PreparedNotice,
): boolean {
  return hits && index !== undefined ? hits.includes(index) : text.test(n);
}

/** Remembered combinations, before the cache starts over (bounds memory on odd feeds). */
const CACHE_LIMIT = 50_000;

/** Rule groups by pipeline and type, with list-field verdicts remembered per combination. */
export class GroupIndex<R extends NoticeRule | DeadlineRule> {
  private readonly index: FilterIndex<RuleGroup<R>>;
  private readonly cache = new Map<string, Cached<R>>();
  /** Pattern sets by their sources: combinations reading the same patterns share one. */
  private readonly sets = new Map<string, PatternSet | null>();
  private readonly list: RuleGroup<R>[];
  private readonly byKey = new Map<string, RuleGroup<R>>();

  constructor(groups: readonly RuleGroup<R>[]) {
    this.list = [...groups];
    this.index = new FilterIndex(groups);
    for (const g of groups) this.byKey.set(groupKey(g.rules[0]), g);
  }

  /** The groups, in the order of their first rules. */
  get groups(): readonly RuleGroup<R>[] {
    return this.list;
  }

  /**
   * Adds `rule` after every rule held: to the group of its filter and exclusion, or in a
   * group of its own, compiled by `partsOf`, which the verdicts remembered did not know
   * (they are judged again). Judges as an index made with the rule among the others would.
   */
  add(rule: R, partsOf: (rule: R, key: string) => CompiledParts): void {
    const key = groupKey(rule);
    const existing = this.byKey.get(key);
    if (existing) {
      existing.rules.push(rule);
      return;
    }
    const group: RuleGroup<R> = { rules: [rule], filter: rule.filter, ...partsOf(rule, key) };
    this.byKey.set(key, group);
    this.list.push(group);
    this.index.add(group);
    this.cache.clear();
  }

  /**
   * The groups that may match `n` (a superset of those that do): a group left out fails
   * on its pipelines or its types.
   */
  candidates(n: PreparedNotice): RuleGroup<R>[] {
    return this.index.candidates(n);
  }

  /** Every group whose filter matches `n`, in rule order within each index bucket. */
  matches(n: PreparedNotice): GroupMatch<R>[] {
    if (this.list.length === 0) return [];
    const key = fieldsKey(n);
    let cached = this.cache.get(key);
    if (!cached) {
      cached = this.judgeFields(n);
      if (this.cache.size >= CACHE_LIMIT) {
        this.cache.clear();
        this.sets.clear();
      }
      this.cache.set(key, cached);
    }
    // One pass over each text judges every text filter these groups read.
    const hits = cached.texts && matchingPatterns(cached.texts, n);
    const out: GroupMatch<R>[] = [];
    for (const m of cached.matches) {
      const { group, exclusion } = m;
      const { text } = group.parts;
      if (text && !judge(text, m.text, hits, n)) continue;
      const excluded =
        exclusion === 'yes' ||
        (typeof exclusion === 'object' && judge(exclusion, m.excludeText, hits, n));
      out.push({ group, excluded });
    }
    return out;
  }

  /** The groups whose list fields match `n`'s combination, and the text filters they read. */
  private judgeFields(n: PreparedNotice): Cached<R> {
    const matches: CachedMatch<R>[] = [];
    for (const group of this.index.candidates(n)) {
      if (group.parts.fields(n) !== null) continue;
      const ex = group.excludeParts;
      matches.push({
        group,
        exclusion: !ex || ex.fields(n) !== null ? 'no' : (ex.text ?? 'yes'),
      });
    }
    const sources = new Set<string>();
    for (const { group, exclusion } of matches) {
      if (group.parts.text) sources.add(group.parts.text.source);
      if (typeof exclusion === 'object') sources.add(exclusion.source);
    }
    const texts = this.setOf([...sources].sort());
    if (texts) {
      const index = new Map(texts.sources.map((source, i) => [source, i]));
      for (const m of matches) {
        const { text } = m.group.parts;
        if (text) m.text = index.get(text.source);
        if (typeof m.exclusion === 'object') m.excludeText = index.get(m.exclusion.source);
      }
    }
    return { matches, texts };
  }

  private setOf(sources: string[]): PatternSet | null {
    const key = JSON.stringify(sources);
    let set = this.sets.get(key);
    if (set === undefined) {
      set = PatternSet.of(sources);
      this.sets.set(key, set);
    }
    return set;
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
  /** Reminder subscriptions for one notice ("Remind me"), by that notice's id. */
  deadlinesByNotice: ReadonlyMap<number, DeadlineRule[]>;
  capacity: CompiledCapacityRule[];
  /** The filters and exclusions compiled, by group key, for the next compile to take. */
  filters: ReadonlyMap<string, CompiledParts>;
}

/** A filter and exclusion compiled, as groups with that key share them. */
type CompiledParts = Pick<RuleGroup<NoticeRule>, 'match' | 'parts' | 'exclude' | 'excludeParts'>;

/** A rule's filter and exclusion compiled. */
function compileParts(rule: NoticeRule | DeadlineRule): CompiledParts {
  // Each pattern is compiled once: the whole-filter checks are built from the parts.
  const filter = compileFilterParts(rule.filter);
  const excludeParts = rule.not ? compileFilterParts(rule.not) : undefined;
  return {
    match: joinParts(filter),
    parts: filter,
    ...(excludeParts ? { exclude: joinParts(excludeParts), excludeParts } : {}),
  };
}

/** Each rule's group key, made once a rule: a rule never changes, and is compiled again and again. */
const groupKeys = new WeakMap<NoticeRule | DeadlineRule, string>();

function groupKey(rule: NoticeRule | DeadlineRule): string {
  let key = groupKeys.get(rule);
  if (key === undefined) {
    key = JSON.stringify([rule.filter, rule.not ?? null]);
    groupKeys.set(rule, key);
  }
  return key;
}

/**
 * The rules grouped by identical filter and exclusion, each group's compiled once, or
 * taken from `compiled` (the compile before) where a group of that key was.
 */
function group<R extends NoticeRule | DeadlineRule>(
  rules: readonly R[],
  compiled: Map<string, CompiledParts>,
  before?: ReadonlyMap<string, CompiledParts>,
): RuleGroup<R>[] {
  const groups = new Map<string, RuleGroup<R>>();
  for (const rule of rules) {
    const key = groupKey(rule);
    const existing = groups.get(key);
    if (existing) {
      existing.rules.push(rule);
      continue;
    }
    const parts = compiled.get(key) ?? before?.get(key) ?? compileParts(rule);
    compiled.set(key, parts);
    groups.set(key, { rules: [rule], filter: rule.filter, ...parts });
  }
  return [...groups.values()];
}

const always = () => true;

function compileCapacity(rule: CapacityRule): CompiledCapacityRule {
  const locations = rule.locations ? textListMatcher(rule.locations) : undefined;
  return {
    rule,
    pipeline: rule.pipelines ? textListMatcher(rule.pipelines) : always,
    location: locations ? (name, id) => locations(name) || locations(id) : always,
    flow: rule.flow ? textListMatcher(rule.flow) : always,
    cycle: rule.cycles ? textListMatcher(rule.cycles) : always,
  };
}

/**
 * Compiles a rule set; the filters of `before` (the set it replaces) are not compiled
 * again: a subscription added to thousands costs little more than its own.
 */
export function compileRules(rules: readonly Rule[], before?: CompiledRules): CompiledRules {
  const compiled = new Map<string, CompiledParts>();
  const previous = before?.filters;
  const notices = group(
    rules.filter((r): r is NoticeRule => r.kind === 'notices'),
    compiled,
    previous,
  );
  const deadlines = rules.filter((r): r is DeadlineRule => r.kind === 'deadlines');
  const byNotice = new Map<number, DeadlineRule[]>();
  for (const r of deadlines) {
    const id = r.origin?.noticeId;
    if (id !== undefined) byNotice.set(id, [...(byNotice.get(id) ?? []), r]);
  }
  const capacity = rules
    .filter((r): r is CapacityRule => r.kind === 'capacity')
    .map(compileCapacity);
  return {
    all: rules,
    notices: new GroupIndex(notices),
    deadlines: new GroupIndex(
      group(
        deadlines.filter((r) => r.origin?.noticeId === undefined),
        compiled,
        previous,
      ),
    ),
    deadlinesByName: new Map(deadlines.map((r) => [r.name, r])),
    deadlinesByNotice: byNotice,
    capacity,
    filters: compiled,
  };
}

/**
 * `compiled` with `added` after its rules: what `compileRules` of them all gives, at the
 * cost of the added rules alone (a subscription made among thousands). Extends
 * `compiled`'s groups in place: the set it returns replaces it.
 */
export function extendRules(compiled: CompiledRules, added: readonly Rule[]): CompiledRules {
  if (added.length === 0) return compiled;
  const filters = compiled.filters as Map<string, CompiledParts>;
  const partsOf = (rule: NoticeRule | DeadlineRule, key: string) => {
    let parts = filters.get(key);
    if (!parts) {
      parts = compileParts(rule);
      filters.set(key, parts);
    }
    return parts;
  };
  const byName = compiled.deadlinesByName as Map<string, DeadlineRule>;
  const byNotice = compiled.deadlinesByNotice as Map<number, DeadlineRule[]>;
  for (const rule of added) {
    if (rule.kind === 'notices') compiled.notices.add(rule, partsOf);
    else if (rule.kind === 'capacity') compiled.capacity.push(compileCapacity(rule));
    else {
      byName.set(rule.name, rule);
      const id = rule.origin?.noticeId;
      if (id !== undefined) byNotice.set(id, [...(byNotice.get(id) ?? []), rule]);
      else compiled.deadlines.add(rule, partsOf);
    }
  }
  return { ...compiled, all: [...compiled.all, ...added] };
}
