/**
 * Rules compiled for deciding: filters compiled once, notice and deadline rules indexed
 * by pipeline and type, capacity rules by pipeline.
 */
import {
  type CompiledFilter,
  compileFilter,
  FilterIndex,
  textListMatcher,
} from '../rules/match.js';
import type { CapacityRule, DeadlineRule, NoticeFilter, NoticeRule, Rule } from '../rules/types.js';

/** A notice or deadline rule ready to match. */
export interface CompiledNoticeRule<R extends NoticeRule | DeadlineRule> {
  rule: R;
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
  notices: FilterIndex<CompiledNoticeRule<NoticeRule>>;
  deadlines: FilterIndex<CompiledNoticeRule<DeadlineRule>>;
  deadlinesByName: ReadonlyMap<string, DeadlineRule>;
  capacity: CompiledCapacityRule[];
}

function compileNoticeRule<R extends NoticeRule | DeadlineRule>(rule: R): CompiledNoticeRule<R> {
  return {
    rule,
    filter: rule.filter,
    match: compileFilter(rule.filter),
    ...(rule.not ? { exclude: compileFilter(rule.not) } : {}),
  };
}

const always = () => true;

/** Compiles a rule set. */
export function compileRules(rules: readonly Rule[]): CompiledRules {
  const notices = rules.filter((r): r is NoticeRule => r.kind === 'notices').map(compileNoticeRule);
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
    deadlines: new FilterIndex(deadlines.map(compileNoticeRule)),
    deadlinesByName: new Map(deadlines.map((r) => [r.name, r])),
    capacity,
  };
}
