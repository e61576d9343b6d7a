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

/** One slug of a setting (`PIPEWATCH_PIPELINES`) that the API does not track. */
export interface UnknownSettingPipeline {
  /** The variable that names it. */
  setting: string;
  slug: string;
  suggestion: string | undefined;
  /** `PIPEWATCH_PIPELINES: pipeline 'transcoo' is not tracked by the API — did you mean 'transco'?` */
  message: string;
}

/**
 * Every slug a setting names that is not in `tracked`, with a suggestion: a typo there
 * leaves a pipeline out as silently as one in a rule. Nothing while `tracked` is empty.
 */
export function unknownSettingPipelines(
  setting: string,
  slugs: readonly string[],
  tracked: readonly string[],
): UnknownSettingPipeline[] {
  if (tracked.length === 0) return [];
  const known = new Set(tracked);
  return slugs
    .filter((slug) => !known.has(slug))
    .map((slug) => ({
      setting,
      slug,
      suggestion: suggest(slug, tracked),
      message: `${setting}: pipeline '${slug}' is not tracked by the API${didYouMean(slug, tracked)}`,
    }));
}
