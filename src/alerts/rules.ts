/**
 * Rules compiled for deciding: filters compiled once, notice and deadline rules grouped
 * by identical filters (many people subscribe to the same thing; a group is judged once
 * per notice) and indexed by pipeline and type, capacity rules with compiled matchers.
 */
import {
  type CompiledFilter,
  compileFilter,
  FilterIndex,
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
  notices: FilterIndex<RuleGroup<NoticeRule>>;
  deadlines: FilterIndex<RuleGroup<DeadlineRule>>;
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
      ...(rule.not ? { exclude: compileFilter(rule.not) } : {}),
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
    notices: new FilterIndex(notices),
    deadlines: new FilterIndex(group(deadlines)),
    deadlinesByName: new Map(deadlines.map((r) => [r.name, r])),
    capacity,
  };
}
