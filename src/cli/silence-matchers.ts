/**
 * Silence matchers as amtool takes them on the command line: `pipeline=transco`,
 * `target=slack:#gas`, `rule=transco-constraints`. A key given twice (or `a|b`) means
 * either value; different keys must all match. Each value is checked against what it
 * could ever match, so a typo is refused with the word meant rather than stored as a
 * silence that holds nothing back.
 */
import { parseTarget, targetKey, targetLabel } from '../domain/targets.js';
import { errorMessage } from '../lib/error-text.js';
import { didYouMean } from '../lib/suggest.js';
import type { SilenceMatchers } from '../store/silences.js';

/** The matcher keys, and the field of `SilenceMatchers` each fills. */
export const MATCHER_KEYS = { pipeline: 'pipelines', target: 'targets', rule: 'rules' } as const;
type MatcherKey = keyof typeof MATCHER_KEYS;

const KEYS = Object.keys(MATCHER_KEYS) as MatcherKey[];
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

function checkValue(
  key: MatcherKey,
  value: string,
  checks: MatcherChecks,
): { value: string } | { problem: string } {
  switch (key) {
    case 'pipeline': {
      const slug = value.toLowerCase();
      if (!SLUG.test(slug))
        return { problem: `pipeline=${value}: must be a pipeline slug such as 'texas-eastern'` };
      if (checks.pipelines.length > 0 && !checks.pipelines.includes(slug))
        return {
          problem: `pipeline=${value}: not tracked by the API${didYouMean(slug, checks.pipelines)}`,
        };
      return { value: slug };
    }
    case 'target':
      try {
        return { value: targetKey(parseTarget(value)) };
      } catch (error) {
        return { problem: `target=${value}: ${errorMessage(error)}` };
      }
    case 'rule': {
      const name = checks.rules.find((r) => r.toLowerCase() === value.toLowerCase());
      if (name) return { value: name };
      const note = checks.rulesNote ? ` (${checks.rulesNote})` : '';
      return {
        problem: `rule=${value}: no rule of that name in the rule files or the subscriptions${didYouMean(value, checks.rules)}${note}`,
      };
    }
  }
}

/** Reads `key=value` words into matchers; every word that is not one is a problem. */
export function parseMatchers(words: readonly string[], checks: MatcherChecks): ParsedMatchers {
  const lists: Record<MatcherKey, string[]> = { pipeline: [], target: [], rule: [] };
  const problems: string[] = [];
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq < 0) {
      problems.push(`'${word}' is not a matcher: write key=value, such as pipeline=transco`);
      continue;
    }
    const rawKey = word.slice(0, eq).trim();
    const rest = word.slice(eq + 1);
    if (rawKey.endsWith('!') || rest.startsWith('~')) {
      problems.push(
        `'${word}': only equality matchers (key=value) are supported; for several values give the key again`,
      );
      continue;
    }
    const key = rawKey.toLowerCase() as MatcherKey;
    if (!KEYS.includes(key)) {
      problems.push(
        `unknown matcher key '${rawKey}'${didYouMean(rawKey, KEYS)} (keys: ${KEYS.join(', ')})`,
      );
      continue;
    }
    const values = rest.split('|').map((v) => v.trim());
    if (values.some((v) => v === '')) {
      problems.push(`'${word}': ${key}= needs a value`);
      continue;
    }
    for (const value of values) {
      const checked = checkValue(key, value, checks);
      if ('problem' in checked) problems.push(checked.problem);
      else if (!lists[key].includes(checked.value)) lists[key].push(checked.value);
    }
  }
  const matchers: SilenceMatchers = {};
  for (const key of KEYS) if (lists[key].length > 0) matchers[MATCHER_KEYS[key]] = lists[key];
  return { matchers, problems };
}

/** Whether matchers match every alert. */
export function matchesEverything(m: SilenceMatchers): boolean {
  return KEYS.every((k) => (m[MATCHER_KEYS[k]]?.length ?? 0) === 0);
}

/**
 * A target key as it may be shown, as `targetLabel` shows its target: a webhook or a
 * Teams workflow by its scheme and host only (its path or query may hold its token),
 * PagerDuty by the last 4 characters of its integration key. A key that does not read as
 * a target shows its kind alone.
 */
export function shownTarget(key: string): string {
  try {
    return targetLabel(parseTarget(key));
  } catch {
    const colon = key.indexOf(':');
    return colon < 0 ? key : `${key.slice(0, colon)}:…`;
  }
}

/** `pipeline=transco|tetco target=slack:#gas`, with webhooks shown by host; `everything` for none. */
export function matchersLine(m: SilenceMatchers): string {
  const parts: string[] = [];
  for (const key of KEYS) {
    const values = m[MATCHER_KEYS[key]];
    if (!values || values.length === 0) continue;
    parts.push(`${key}=${(key === 'target' ? values.map(shownTarget) : values).join('|')}`);
  }
  return parts.length > 0 ? parts.join(' ') : 'everything';
}
