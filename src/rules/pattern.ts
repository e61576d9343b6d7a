/**
 * The `text:` patterns of rules, matched by RE2JS, the JavaScript port of RE2: its automata
 * take time linear in the text whatever the pattern, so neither a user's pattern nor a
 * pipeline's text can hold the daemon up the way a backtracking engine can (`(a+)+$`
 * against a line of `a`s, or `force.*majeure` against a long body). The price is the
 * features that need backtracking: look-ahead, look-behind and back-references, which
 * validation refuses with the reason.
 *
 * Why RE2JS and not RE2 itself (`re2`, a native addon) or `re2-wasm`, measured with
 * `npm run bench regex` and `rules` on each (CPU time; docs/PATTERN-ENGINE.md has the
 * figures): `re2` compiles from source wherever its prebuilt binary cannot be fetched,
 * 5 minutes of CPU at every `npm ci`, 100 MB and `node-gyp` in production; RE2JS installs
 * in about a second of CPU, 0.9 MB, no compiler. It is slower per character: 7.4 µs a
 * notice for 10 ordinary patterns in one pass against RE2's 2.3, and about 3 times RE2's
 * time per notice with 10,000 rules (14 µs against 5); an automaton of 1,000 instructions
 * over 64 K hostile characters, 1.2 s of CPU against 0.3 s. `re2-wasm` has no set, so
 * every pattern would take a pass of its own, and its 16 MB heap never frees a pattern:
 * the process aborts after some 2,600 compilations.
 *
 * Semantics stay those of JavaScript's `new RegExp(source, 'iu')`: case-insensitive, a
 * match anywhere in the text, `^` and `$` at its ends, `\s` with Unicode's spaces.
 */
import { RE2JS, RE2JSSyntaxException, RE2Set } from 're2js';
import { errorMessage } from '../lib/error-text.js';

/** The longest pattern a rule may have, in characters. */
export const PATTERN_MAX_LENGTH = 1_000;

/** How much of a notice's subject, and of its text, a pattern reads: the first 64 K characters. */
export const TEXT_LIMIT = 65_536;

/**
 * The most instructions a pattern's automaton may have. Matching is linear in the text,
 * and its worst case grows with the automaton: `a[ab]{990}c` (994 instructions) takes
 * about 1.2 s of CPU over 64 K characters that keep every thread alive (`npm run bench
 * regex`), so a pattern at the bound about twice that. RE2JS has no memory budget to
 * refuse a larger one; ordinary patterns have under a hundred instructions.
 */
export const PROGRAM_LIMIT = 2_000;

/** Case-insensitive; without `m`, so `^` and `$` are the text's ends. RE2JS is always Unicode. */
const FLAGS = RE2JS.CASE_INSENSITIVE;

/**
 * The spaces JavaScript's `\s` means, as the inside of a class: RE2's `\s` has only
 * `\t\n\f\r` and space. It ends with a class escape so that a `-` after it stays literal.
 */
const JS_SPACE =
  '\\v\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}\\s';

/** JavaScript's long names of general categories (`\p{Letter}`), as RE2 spells them. */
const CATEGORY: Record<string, string> = {
  Letter: 'L',
  Cased_Letter: 'LC',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
};

/** `\p{…}`'s name as RE2 spells it: `Script=Greek` and `sc=Greek` are `Greek`, `Letter` is `L`. */
function propertyName(name: string): string {
  const value = /^(?:Script|sc|General_Category|gc)=(.+)$/.exec(name)?.[1] ?? name;
  return CATEGORY[value] ?? value;
}

/**
 * `source` in RE2's syntax, read as JavaScript reads it: `\s` and `\S` spelled out as
 * JavaScript means them, so that a rule's `force\s+majeure` still matches across the
 * no-break space of an HTML-derived text; `\u00e9`, `\u{1F600}` and `\cA` as `\x{…}`;
 * `\p{Letter}` and `\p{Script=Greek}` by RE2's names. Nothing else changes. Inside a
 * class `\S` stays RE2's (it then also takes Unicode spaces).
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
      } else if (next === 'u') {
        const code = /^u(?:([0-9a-fA-F]{4})|\{([0-9a-fA-F]+)\})/.exec(source.slice(i + 1, i + 16));
        if (code) {
          out += `\\x{${code[1] ?? code[2]}}`;
          i += code[0].length;
          continue;
        }
        out += c + next;
      } else if (next === 'c' && /[a-zA-Z]/.test(source[i + 2] ?? '')) {
        out += `\\x{${((source.charCodeAt(i + 2) % 32) | 0).toString(16)}}`;
        i += 2;
        continue;
      } else if ((next === 'p' || next === 'P') && source[i + 2] === '{') {
        const close = source.indexOf('}', i + 3);
        if (close < 0) {
          out += c + next;
        } else {
          out += `\\${next}{${propertyName(source.slice(i + 3, close))}}`;
          i = close;
          continue;
        }
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

/** RE2JS's refusal as one line: what is wrong, and the part of the pattern it is about. */
function refusal(error: unknown): string {
  if (error instanceof RE2JSSyntaxException) {
    return error.input ? `${error.error}: ${error.input}` : error.error;
  }
  return errorMessage(error);
}

/**
 * RE2JS's automaton for `source` (already in RE2's syntax); throws a `SyntaxError` with
 * RE2JS's reason, or "pattern too large" past `PROGRAM_LIMIT`.
 */
function compileRe2(source: string, flags: number): RE2JS {
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, flags);
  } catch (error) {
    throw new SyntaxError(refusal(error));
  }
  // RE2JS has no size in its interface; its compiled program (`re2Input`) tells it.
  const size = re.re2Input.prog.numInst();
  if (size > PROGRAM_LIMIT) {
    throw new SyntaxError(`pattern too large: ${size} instructions, more than ${PROGRAM_LIMIT}`);
  }
  return re;
}

/** A rule's pattern, compiled once; `test` takes a text cut by `patternText`. */
export interface Pattern {
  test(text: Uint8Array | string): boolean;
}

/**
 * Compiled patterns by source, held weakly: thousands of rules often share a few dozen
 * patterns, and each automaton costs kilobytes. Sharing is safe since a pattern keeps no
 * state between calls to `test`.
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
  const pattern: Pattern = compileRe2(re2Source(source), FLAGS);
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
    private readonly set: { match(text: Uint8Array | string): number[] },
  ) {}

  /** The set of `sources`, or null when they are fewer than two or their automaton is too large. */
  static of(sources: readonly string[]): PatternSet | null {
    if (sources.length < 2) return null;
    try {
      const set = new RE2Set(RE2Set.UNANCHORED, FLAGS);
      for (const source of sources) set.add(re2Source(source));
      set.compile();
      return new PatternSet(sources, set);
    } catch {
      return null;
    }
  }

  /**
   * The indexes in `sources` of the patterns that match `text`, in increasing order, or
   * null when the set could not tell (each pattern then decides alone, in linear time too).
   */
  match(text: Uint8Array | string): number[] | null {
    try {
      return this.set.match(text);
    } catch {
      return null;
    }
  }
}

/**
 * What a pattern reads of a subject or notice text: its first `TEXT_LIMIT` characters (a
 * surrogate pair is not split), made once per text for all the patterns that read it.
 * Matching time is then bounded whatever a pipeline posts. A text that goes on past the
 * bound is followed by U+FFFF, a noncharacter, so that `$` does not take the cut for the
 * text's end. It stays a JavaScript string: RE2JS reads one about a third faster than
 * the same text as UTF-8 bytes.
 */
export function patternText(text: string): string {
  if (text.length <= TEXT_LIMIT) return text;
  const last = text.charCodeAt(TEXT_LIMIT - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? TEXT_LIMIT - 1 : TEXT_LIMIT;
  return `${text.slice(0, end)}${CUT}`;
}

/** What follows a text cut at the bound. */
const CUT = '\uffff';

const WHY = 'patterns run in linear time, which rules out look-around and back-references';

/** RE2JS's refusals that have a reason a rule writer can act on, by the start of its message. */
const EXPLAINED: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [
    /^invalid or unsupported Perl syntax: `?\(\?=/,
    () => `look-ahead (?=…) is not supported: ${WHY}`,
  ],
  [
    /^invalid or unsupported Perl syntax: `?\(\?!/,
    () => `negative look-ahead (?!…) is not supported: ${WHY}; leave notices out with not: text:`,
  ],
  [/^invalid named capture: `?\(\?<=/, () => `look-behind (?<=…) is not supported: ${WHY}`],
  [
    /^invalid named capture: `?\(\?<!/,
    () => `negative look-behind (?<!…) is not supported: ${WHY}; leave notices out with not: text:`,
  ],
  [
    /^invalid escape sequence: `?(\\[1-9])/,
    (m) => `back-reference ${m[1]} is not supported: ${WHY}; repeat the text instead`,
  ],
  [/^invalid escape sequence: `?\\k/, () => `back-reference \\k<…> is not supported: ${WHY}`],
  [
    /^invalid repeat count: `?(\{[^}]*\})/,
    (m) => `repetition ${m[1]} is too large: at most 1000 repeats, nested counts multiplied`,
  ],
  [
    /^(?:pattern|expression) too large/,
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
    // Without the case flag first, so that the message quotes the pattern, not a `(?i)` before it.
    compileRe2(re2Source(source), 0);
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
