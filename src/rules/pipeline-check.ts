/**
 * Pipeline slugs a rule names that the API does not track. The schema can only check
 * that a slug looks like one; a typo such as `transcoo` would leave the rule silent
 * forever, so once the API's pipeline list is known every slug is checked against it.
 */
import { didYouMean, suggest } from '../lib/suggest.js';
import type { Rule, RuleProblem } from './types.js';

/** One slug the API does not track, in one rule. */
export interface UnknownPipeline extends RuleProblem {
  rule: string;
  slug: string;
  /** The tracked slug it was most likely meant to be. */
  suggestion: string | undefined;
}

/**
 * Every slug of `rules` that is not in `tracked`, at the position it was written, with
 * a suggestion. Nothing when `tracked` is empty: the list is not known yet.
 */
export function unknownPipelines(
  rules: readonly Rule[],
  tracked: readonly string[],
): UnknownPipeline[] {
  if (tracked.length === 0) return [];
  const known = new Set(tracked);
  const out: UnknownPipeline[] = [];
  for (const rule of rules) {
    for (const ref of rule.pipelineRefs ?? []) {
      if (known.has(ref.slug)) continue;
      out.push({
        ...ref.at,
        rule: rule.name,
        slug: ref.slug,
        suggestion: suggest(ref.slug, tracked),
        message: `rule '${rule.name}': pipeline '${ref.slug}' is not tracked by the API${didYouMean(ref.slug, tracked)}`,
      });
    }
  }
  return out;
}
