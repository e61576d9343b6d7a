/**
 * Silence matchers as Alertmanager has them, read from amtool's syntax and judged
 * against an alert: `pipeline=transco`, `type!=maintenance`, `pipeline=~"transco|tetco"`,
 * `type!~"planned.*"`. The command line and chat read them here, so that both take the
 * same words and the engine, `why` and `rules test` judge them the same way.
 *
 * - Every comparison ignores letter case, as rules compare pipelines and types.
 * - A regular expression must match the whole value (Alertmanager anchors it), in RE2's
 *   syntax through the rules' linear-time engine (`rules/pattern.ts`), refused as a
 *   rule's pattern would be.
 * - An alert without a field (a capacity alert has no notice, so no type, category or
 *   status) has the empty string there, as Alertmanager treats a missing label: `type=`
 *   with `""` matches it, `type!=maintenance` and `type!~"maint.*"` match it too.
 * - `=` matchers of one key are alternatives (`pipeline=transco pipeline=tetco`, and
 *   `pipeline=transco|tetco` unquoted, as pipewatch has always read them); every other
 *   matcher must hold as well.
 */
import { type Target, targetKey } from '../domain/targets.js';
import { didYouMean } from '../lib/suggest.js';
import { words as wordsOf } from '../rules/match.js';
import { compilePattern, type Pattern, patternProblem, patternText } from '../rules/pattern.js';
import {
  MATCHER_LABELS,
  type MatcherLabel,
  type SilenceMatcher,
  type SilenceMatchers,
} from '../store/silences.js';

/** What a silence is judged against: an alert's values, by matcher key. */
export type AlertLabels = Record<MatcherLabel, string>;

/** The values of an alert of `rule` about `pipeline` to `target`, with its notice's fields. */
export function alertLabels(
  rule: string,
  pipeline: string,
  target: Target,
  notice?: { type: string; category: string; status: string } | null,
): AlertLabels {
  return {
    pipeline,
    target: targetKey(target),
    rule,
    type: notice?.type ?? '',
    category: notice?.category ?? '',
    status: notice?.status ?? '',
  };
}

/** The longest matcher value: the longest rule pattern. */
export const MATCHER_VALUE_MAX = 1_000;

/** The anchored source of a regex matcher: the whole value must match. */
function anchored(source: string): string {
  return `^(?:${source})$`;
}

/** Why a regex matcher's value is refused, as a rule's pattern would be; undefined: taken. */
export function matcherRegexProblem(source: string): string | undefined {
  if (source.length > MATCHER_VALUE_MAX)
    return `is ${source.length} characters long; a matcher may have at most ${MATCHER_VALUE_MAX}`;
  // Checked alone first, so that the reason names the user's text, not the anchoring.
  return patternProblem(source) ?? patternProblem(anchored(source));
}

/** A compiled regex matcher, or null for one that no longer compiles (then it holds nothing). */
function regexOf(source: string): Pattern | null {
  try {
    return compilePattern(anchored(source));
  } catch {
    return null;
  }
}

/** Whether one matcher holds for `value` (the alert's, for the matcher's key). */
export function matcherHolds(m: SilenceMatcher, value: string): boolean {
  switch (m.op) {
    case '=':
      return value.toLowerCase() === m.value.toLowerCase();
    case '!=':
      return value.toLowerCase() !== m.value.toLowerCase();
    case '=~': {
      const re = regexOf(m.value);
      return re?.test(patternText(value)) === true;
    }
    case '!~': {
      // One that no longer compiles holds nothing back, rather than everything.
      const re = regexOf(m.value);
      return re !== null && !re.test(patternText(value));
    }
  }
}

/**
 * Whether `matchers` match an alert: each key's `=` matchers by one of them, every other
 * matcher by itself. None: every alert.
 */
export function matchersMatch(matchers: SilenceMatchers, labels: AlertLabels): boolean {
  let anyEqual: Set<MatcherLabel> | undefined;
  let equalHeld: Set<MatcherLabel> | undefined;
  for (const m of matchers) {
    const holds = matcherHolds(m, labels[m.key]);
    if (m.op === '=') {
      anyEqual ??= new Set();
      anyEqual.add(m.key);
      if (holds) {
        equalHeld ??= new Set();
        equalHeld.add(m.key);
      }
    } else if (!holds) return false;
  }
  if (!anyEqual) return true;
  for (const key of anyEqual) if (!equalHeld?.has(key)) return false;
  return true;
}

/** The `=` values of `key`, or undefined when `matchers` have none. */
export function equalValues(matchers: SilenceMatchers, key: MatcherLabel): string[] | undefined {
  const values = matchers.filter((m) => m.key === key && m.op === '=').map((m) => m.value);
  return values.length > 0 ? values : undefined;
}

/** One `=` matcher of `key` per value: any of them matches. */
export function equalMatchers(key: MatcherLabel, values: readonly string[]): SilenceMatcher[] {
  return values.map((value) => ({ key, op: '=', value }));
}

/** Between the words of an entry, and around it: not a letter, digit or hyphen. */
const NOT_WORD = '[^\\p{L}\\p{N}-]';

/**
 * A `=~` matcher that matches a value as a rule list does (`rules/match.ts`): equal to an
 * entry or containing it as whole words, a word a run of letters, digits and hyphens, so
 * that chat's `mute … type:maintenance` holds back `Planned Maintenance` but `critical`
 * not `Non-Critical`.
 */
export function wholeWordsMatcher(key: MatcherLabel, entries: readonly string[]): SilenceMatcher {
  // Words are letters, digits and hyphens: none is special in a regex outside a class.
  const alternatives = entries.map((e) => wordsOf(e).join(`${NOT_WORD}+`));
  return {
    key,
    op: '=~',
    value: `(?:.*${NOT_WORD})?(?:${alternatives.join('|')})(?:${NOT_WORD}.*)?`,
  };
}

/** Needs quotes to read back as one value: empty, or spaces, quotes, `|`, `,` or a backslash. */
const NEEDS_QUOTES = /^$|[\s"'|,\\]/;

/** A value as amtool writes it: bare when it can be, else in double quotes with `\"` and `\\`. */
export function quotedValue(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"` : value;
}

/**
 * `pipeline=transco|tetco type!~maintenance`: each matcher as written, the `=` values of
 * a key together as pipewatch has always shown them; `everything` for none. `shown`
 * rewrites a target's value for display (a webhook by its host only).
 */
export function matchersLine(
  matchers: SilenceMatchers,
  shown: (m: SilenceMatcher) => string = (m) => m.value,
): string {
  const parts: string[] = [];
  const equal = new Map<MatcherLabel, SilenceMatcher[]>();
  for (const m of matchers) {
    if (m.op !== '=') continue;
    const list = equal.get(m.key);
    if (list) list.push(m);
    else equal.set(m.key, [m]);
  }
  for (const key of MATCHER_LABELS) {
    const list = equal.get(key);
    if (!list) continue;
    const values = list.map((m) => shown(m));
    parts.push(
      values.some((v) => NEEDS_QUOTES.test(v))
        ? values.map((v) => `${key}=${quotedValue(v)}`).join(' ')
        : `${key}=${values.join('|')}`,
    );
  }
  for (const m of matchers) if (m.op !== '=') parts.push(`${m.key}${m.op}${quotedValue(shown(m))}`);
  return parts.length > 0 ? parts.join(' ') : 'everything';
}

/** A matcher read from its words, or the problem that refuses it. */
export type ReadMatcher = { matchers: SilenceMatcher[] } | { problem: string };

const MATCHER = /^\s*([^=!~\s"]*)\s*(=~|!~|!=|=)(.*)$/s;

/** The value after the operator: a quoted one unescaped, else as written, trimmed. */
function readValue(text: string): { value: string; quoted: boolean } | { problem: string } {
  const t = text.trim();
  if (!t.startsWith('"')) return { value: t, quoted: false };
  let value = '';
  for (let i = 1; i < t.length; i++) {
    const c = t[i];
    if (c === '\\' && i + 1 < t.length) {
      value += t[++i];
    } else if (c === '"') {
      if (i !== t.length - 1)
        return { problem: `text after the closing quote: ${t.slice(i + 1).slice(0, 40)}` };
      return { value, quoted: true };
    } else value += c;
  }
  return { problem: 'the quote is not closed' };
}

/** Control characters and line breaks: not in any value pipewatch compares. */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

/**
 * Reads one matcher word (`key=value`, `key!=value`, `key=~regex`, `key!~regex`, the value
 * bare or in double quotes). An unquoted `=` value with `|` is one matcher per value.
 * Only the syntax, the key and regexes are checked; what a value names is the caller's.
 */
export function readMatcher(word: string): ReadMatcher {
  const shown = word.length > 60 ? `${word.slice(0, 60)}…` : word;
  const parts = MATCHER.exec(word);
  if (!parts)
    return {
      problem: `'${shown}' is not a matcher: write key=value, key!=value, key=~regex or key!~regex, such as pipeline=transco`,
    };
  const [, rawKey = '', op = '=', rest = ''] = parts;
  const key = rawKey.toLowerCase() as MatcherLabel;
  if (!MATCHER_LABELS.includes(key))
    return {
      problem:
        rawKey === ''
          ? `'${shown}' has no key: write key${op}value, such as pipeline${op}transco`
          : `unknown matcher key '${rawKey}'${didYouMean(rawKey, MATCHER_LABELS)} (keys: ${MATCHER_LABELS.join(', ')})`,
    };
  const read = readValue(rest);
  if ('problem' in read) return { problem: `'${shown}': ${read.problem}` };
  const { value, quoted } = read;
  if (value.length > MATCHER_VALUE_MAX)
    return {
      problem: `${key}${op}: the value is ${value.length} characters long; a matcher may have at most ${MATCHER_VALUE_MAX}`,
    };
  if (CONTROL.test(value))
    return { problem: `${key}${op}: the value has a control character or line break` };
  if (value === '' && !quoted)
    return {
      problem: `'${shown}': ${key}${op} needs a value (${key}${op}"" for an alert without ${key})`,
    };
  const typed = op as SilenceMatcher['op'] satisfies SilenceMatcher['op'];
  if (typed === '=~' || typed === '!~') {
    const problem = matcherRegexProblem(value);
    if (problem)
      return {
        problem: `${key}${op}${quotedValue(value)}: ${problem.startsWith('is ') ? `the regex ${problem}` : problem}`,
      };
    return { matchers: [{ key, op: typed, value }] };
  }
  if (typed === '=' && !quoted && value.includes('|')) {
    const values = value.split('|').map((v) => v.trim());
    if (values.some((v) => v === ''))
      return { problem: `'${shown}': ${key}= has an empty value between | signs` };
    return { matchers: values.map((v) => ({ key, op: typed, value: v })) };
  }
  return { matchers: [{ key, op: typed, value }] };
}
