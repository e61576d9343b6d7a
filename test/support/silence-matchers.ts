/**
 * Silence matchers from lists of equal values, as silences were written before matchers
 * had operators (and as the migration converts them): each value an `=` matcher, an
 * empty list one that matches nothing.
 */
import type { SilenceMatchers } from '../../src/store/silences.js';

export interface MatcherLists {
  pipelines?: readonly string[] | undefined;
  targets?: readonly string[] | undefined;
  rules?: readonly string[] | undefined;
}

export function listMatchers(lists: MatcherLists): SilenceMatchers {
  const out: SilenceMatchers = [];
  for (const [list, key] of [
    ['pipelines', 'pipeline'],
    ['targets', 'target'],
    ['rules', 'rule'],
  ] as const) {
    const values = lists[list];
    if (values === undefined) continue;
    if (values.length === 0) out.push({ key, op: '!~', value: '.*' });
    for (const value of values) out.push({ key, op: '=', value });
  }
  return out;
}
