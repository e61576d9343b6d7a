/**
 * Silence matchers as amtool takes them on the command line: `pipeline=transco`,
 * `target=slack:#gas`, `rule!=transco-constraints`, `type=~"planned.*"` (the syntax and
 * what they mean: `alerts/silence-matchers.ts`). Each equality value is checked against
 * what it could ever match, so a typo is refused with the word meant rather than stored
 * as a silence that holds nothing back.
 */

import { readMatcher } from '../alerts/silence-matchers.js';
import { matchersText, shownTarget } from '../alerts/silences.js';
import { parseTarget, targetKey } from '../domain/targets.js';
import { errorMessage } from '../lib/error-text.js';
import { didYouMean } from '../lib/suggest.js';
import type { SilenceMatcher, SilenceMatchers } from '../store/silences.js';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** What the values are checked against. */
export interface MatcherChecks {
  /** The API's pipeline slugs; empty while the list is not stored (then any slug is taken). */
  pipelines: readonly string[];
  /** The names of the rules in force: the rule files' and the subscriptions'. */
  rules: readonly string[];
  /** Said after an unknown rule name, when the rule files could not all be read. */
  rulesNote?: string | undefined;
}

/** The matchers, and the problems that refuse them (one line each; none: valid). */
export interface ParsedMatchers {
  matchers: SilenceMatchers;
  problems: string[];
}

/** An equality value checked against what it could match: the value to store, or the problem. */
function checkValue(
  m: SilenceMatcher,
  checks: MatcherChecks,
): { value: string } | { problem: string } {
  const { key, op, value } = m;
  if (op === '=~' || op === '!~') return { value };
  switch (key) {
    case 'pipeline': {
      const slug = value.toLowerCase();
      if (!SLUG.test(slug))
        return {
          problem: `pipeline${op}${value}: must be a pipeline slug such as 'texas-eastern'`,
        };
      if (checks.pipelines.length > 0 && !checks.pipelines.includes(slug))
        return {
          problem: `pipeline${op}${value}: not tracked by the API${didYouMean(slug, checks.pipelines)}`,
        };
      return { value: slug };
    }
    case 'target':
      try {
        return { value: targetKey(parseTarget(value)) };
      } catch (error) {
        return { problem: `target${op}${value}: ${errorMessage(error)}` };
      }
    case 'rule': {
      const name = checks.rules.find((r) => r.toLowerCase() === value.toLowerCase());
      if (name) return { value: name };
      const note = checks.rulesNote ? ` (${checks.rulesNote})` : '';
      return {
        problem: `rule${op}${value}: no rule of that name in the rule files or the subscriptions${didYouMean(value, checks.rules)}${note}`,
      };
    }
    default:
      return { value };
  }
}

/**
 * Reads matcher words (`key=value`, `key!=value`, `key=~regex`, `key!~regex`) into
 * matchers, as written; every word that is not one, and every value that names nothing
 * (an unknown pipeline or rule, a target that is not one), is a problem.
 */
export function parseMatchers(words: readonly string[], checks: MatcherChecks): ParsedMatchers {
  const matchers: SilenceMatchers = [];
  const problems: string[] = [];
  for (const word of words) {
    const read = readMatcher(word);
    if ('problem' in read) {
      problems.push(read.problem);
      continue;
    }
    for (const m of read.matchers) {
      const checked = checkValue(m, checks);
      if ('problem' in checked) problems.push(checked.problem);
      else if (!matchers.some((x) => x.key === m.key && x.op === m.op && x.value === checked.value))
        matchers.push({ ...m, value: checked.value });
    }
  }
  return { matchers, problems };
}

/** Whether matchers match every alert. */
export function matchesEverything(m: SilenceMatchers): boolean {
  return m.length === 0;
}

/** `pipeline=transco|tetco type!~maintenance`, with webhooks shown by host; `everything` for none. */
export function matchersLine(m: SilenceMatchers): string {
  return matchersText({ matchers: m });
}

export { shownTarget };
