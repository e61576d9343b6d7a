/**
 * The `text:` patterns of rules, matched by RE2: its automata take time linear in the
 * text whatever the pattern, so neither a user's pattern nor a pipeline's text can hold
 * the daemon up the way a backtracking engine can (`(a+)+$` against a line of `a`s, or
 * `force.*majeure` against a long body). The price is the features that need
 * backtracking: look-ahead, look-behind and back-references, which validation refuses
 * with the reason.
 *
 * Semantics stay those of JavaScript's `new RegExp(source, 'i')`: case-insensitive, a
 * match anywhere in the text, `^` and `$` at its ends, `\s` with Unicode's spaces.
 */
import RE2 from 're2';
import { errorMessage } from '../lib/error-text.js';

/** The longest pattern a rule may have, in characters. */
export const PATTERN_MAX_LENGTH = 1_000;

/** How much of a notice's subject, and of its text, a pattern reads: the first 64 K characters. */
export const TEXT_LIMIT = 65_536;

/** Case-insensitive, on code points; without `m`, so `^` and `$` are the text's ends. */
const FLAGS = 'iu';

/**
 * The spaces JavaScript's `\s` means, as the inside of a class: RE2's `\s` has only
 * `\t\n\f\r` and space. It ends with a class escape so that a `-` after it stays literal.
 */
const JS_SPACE = '\\v\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff\\s';

/**
 * `source` with `\s` and `\S` spelled out as JavaScript means them, so that a rule's
 * `force\s+majeure` still matches across the no-break space of an HTML-derived text.
 * Nothing else changes. Inside a class `\S` stays RE2's (it then also takes Unicode spaces).
 */
export function re2Source(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1];
      if (next === undefined) {
        out += c;
      } else if (next === 'Q' && !inClass) {
        // \Q…\E is literal text up to \E (or the end).
        const end = source.indexOf('\\E', i + 2);
        const stop = end < 0 ? source.length : end + 2;
        out += source.slice(i, stop);
        i = stop - 1;
        continue;
      } else if (next === 's') {
        out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      } else if (next === 'S' && !inClass) {
        out += `[^${JS_SPACE}]`;
      } else {
        out += c + next;
      }
      i++;
      continue;
    }
    if (inClass) {
      const posix = c === '[' && source[i + 1] === ':' ? source.indexOf(':]', i + 2) : -1;
      if (posix >= 0) {
        out += source.slice(i, posix + 2);
        i = posix + 1;
        continue;
      }
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    out += c;
    if (c === '[') {
      inClass = true;
      // RE2 reads a `]` right after `[` or `[^` as a literal, not as the class's end.
      if (source[i + 1] === '^') out += source[++i];
      if (source[i + 1] === ']') out += source[++i];
    }
  }
  return out;
}

/** A rule's pattern, compiled once; `test` takes a text cut by `patternText`. */
export interface Pattern {
  test(text: Buffer | string): boolean;
}

/**
 * Compiled patterns by source, held weakly: thousands of rules often share a few dozen
 * patterns, and each RE2 object costs tens of kilobytes. Sharing is safe since a pattern
 * has no `g` or `y` flag, so `test` keeps no state between calls.
 */
const compiled = new Map<string, WeakRef<Pattern>>();
const forget = new FinalizationRegistry<string>((source) => {
  if (compiled.get(source)?.deref() === undefined) compiled.delete(source);
});

/**
 * Compiles a validated pattern, once per source while any rule holds it; throws a
 * `SyntaxError` on one `patternProblem` refuses.
 */
export function compilePattern(source: string): Pattern {
  const held = compiled.get(source)?.deref();
  if (held) return held;
  const pattern: Pattern = new RE2(re2Source(source), FLAGS);
  compiled.set(source, new WeakRef(pattern));
  forget.register(pattern, source);
  return pattern;
}

/**
 * Several patterns judged together: one pass over a text says which of them match it,
 * where asking each would take a pass each. Each pattern is parsed on its own, so none
 * changes another's meaning, and each gives the verdict `compilePattern` would.
 */
export class PatternSet {
  private constructor(
    readonly sources: readonly string[],
    private readonly set: InstanceType<typeof RE2.Set>,
  ) {}

  /** The set of `sources`, or null when they are fewer than two or RE2 cannot build it. */
  static of(sources: readonly string[]): PatternSet | null {
    if (sources.length < 2) return null;
    try {
      return new PatternSet(sources, new RE2.Set(sources.map(re2Source), FLAGS));
    } catch {
      return null;
    }
  }

  /**
   * The indexes in `sources` of the patterns that match `text`, or null when the set ran
   * out of automaton memory on it (each pattern then decides alone, in linear time too).
   */
  match(text: Buffer | string): number[] | null {
    try {
      return this.set.match(text);
    } catch {
      return null;
    }
  }
}

/**
 * What a pattern reads of a subject or notice text: its first `TEXT_LIMIT` characters (a
 * surrogate pair is not split), as UTF-8, made once per text for all the patterns that
 * read it. Matching time is then bounded whatever a pipeline posts. A text that goes on
 * past the bound is followed by U+FFFF, a noncharacter, so that `$` does not take the cut
 * for the text's end.
 */
export function patternText(text: string): Buffer {
  if (text.length <= TEXT_LIMIT) return Buffer.from(text, 'utf8');
  const last = text.charCodeAt(TEXT_LIMIT - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? TEXT_LIMIT - 1 : TEXT_LIMIT;
  return Buffer.from(`${text.slice(0, end)}${CUT}`, 'utf8');
}

/** What follows a text cut at the bound. */
const CUT = '\uffff';

const WHY = 'patterns run in linear time, which rules out look-around and back-references';

/** RE2's refusals that have a reason a rule writer can act on, by the start of its message. */
const EXPLAINED: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^invalid perl operator: \(\?=/, () => `look-ahead (?=…) is not supported: ${WHY}`],
  [
    /^invalid perl operator: \(\?!/,
    () => `negative look-ahead (?!…) is not supported: ${WHY}; leave notices out with not: text:`,
  ],
  [/^invalid perl operator: \(\?<=/, () => `look-behind (?<=…) is not supported: ${WHY}`],
  [
    /^invalid perl operator: \(\?<!/,
    () => `negative look-behind (?<!…) is not supported: ${WHY}; leave notices out with not: text:`,
  ],
  [
    /^invalid escape sequence: (\\[1-9])/,
    (m) => `back-reference ${m[1]} is not supported: ${WHY}; repeat the text instead`,
  ],
  [/^invalid escape sequence: \\k/, () => `back-reference \\k<…> is not supported: ${WHY}`],
  [
    /^invalid repetition size: (\{[^}]*\})/,
    (m) => `repetition ${m[1]} is too large: at most 1000 repeats, nested counts multiplied`,
  ],
  [
    /^pattern too large/,
    () => 'is too large to match in linear time; use fewer or smaller counted repetitions',
  ],
];

/**
 * Why a rule cannot have `source` as its pattern, in one line, or undefined when it can:
 * too long, a feature that needs backtracking, or not a regular expression at all.
 */
export function patternProblem(source: string): string | undefined {
  if (checked.has(source)) return checked.get(source);
  const problem = findProblem(source);
  if (checked.size >= CHECKED_LIMIT) checked.clear();
  checked.set(source, problem);
  return problem;
}

/** Verdicts of `patternProblem` by source: rule files repeat patterns, and a check compiles twice. */
const checked = new Map<string, string | undefined>();
const CHECKED_LIMIT = 10_000;

function findProblem(source: string): string | undefined {
  if (source.length > PATTERN_MAX_LENGTH) {
    return `is ${source.length} characters long; a pattern may have at most ${PATTERN_MAX_LENGTH}`;
  }
  try {
    // The source as written first, so that RE2's message quotes what the user wrote.
    new RE2(source, FLAGS);
    compilePattern(source);
    return undefined;
  } catch (error) {
    const message = errorMessage(error);
    for (const [re, explain] of EXPLAINED) {
      const m = re.exec(message);
      if (m) return explain(m);
    }
    return `not a valid regular expression: ${message}`;
  }
}
