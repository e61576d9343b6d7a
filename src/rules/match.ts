/**
 * Matching notices against rule filters, with the semantics of the rule files: a list
 * entry matches a value equal to it or containing it as whole words, case-insensitively,
 * where a word is a run of letters, digits and hyphens. `constraint` matches
 * `Capacity Constraint` but not `Unconstrained`; `critical` matches `CRITICAL` but not
 * `Non-Critical`.
 *
 * A notice is prepared once (lower-cased fields, their words, memoised pattern results,
 * the text patterns read) and then checked against every candidate rule, so the cost of a
 * rule is a few set lookups. Text patterns are RE2JS's (see `pattern.ts`).
 */
import type { Notice } from '../upstream/schemas.js';
import { compilePattern, type Pattern, type PatternSet, patternText } from './pattern.js';
import type { NoticeFilter } from './types.js';

const WORD = /[\p{L}\p{N}-]+/gu;

/** The words of a text, lower-cased. */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** A field of a notice, ready for list matching. */
export interface PreparedValue {
  readonly lower: string;
  readonly words: string[];
  readonly wordSet: Set<string>;
}

/**
 * A value's words and their set are made when first read: a notice whose combination of
 * fields was judged before (`GroupIndex` remembers the verdicts) never reads them.
 */
class Prepared implements PreparedValue {
  readonly lower: string;
  #words: string[] | undefined;
  #set: Set<string> | undefined;

  constructor(private readonly value: string) {
    this.lower = value.trim().toLowerCase();
  }

  get words(): string[] {
    this.#words ??= words(this.value);
    return this.#words;
  }

  get wordSet(): Set<string> {
    this.#set ??= new Set(this.words);
    return this.#set;
  }
}

export function prepareValue(value: string): PreparedValue {
  return new Prepared(value);
}

/** A notice ready to be matched by many rules. */
export interface PreparedNotice {
  notice: Notice;
  pipeline: PreparedValue;
  type: PreparedValue;
  category: PreparedValue;
  status: PreparedValue;
  /** Regex results by source, computed on first use. */
  texts: Map<string, boolean>;
  /** Subject and notice text as patterns read them (`patternText`), made on first use. */
  patternTexts: readonly [string, string] | undefined;
}

/** Prepares a notice once for all the rules it meets. */
export function prepareNotice(notice: Notice): PreparedNotice {
  return {
    notice,
    pipeline: prepareValue(notice.pipeline_slug),
    type: prepareValue(notice.type),
    category: prepareValue(notice.category),
    status: prepareValue(notice.status),
    texts: new Map(),
    patternTexts: undefined,
  };
}

function containsWords(valueWords: readonly string[], entryWords: readonly string[]): boolean {
  outer: for (let i = 0; i + entryWords.length <= valueWords.length; i++) {
    for (let j = 0; j < entryWords.length; j++) {
      if (valueWords[i + j] !== entryWords[j]) continue outer;
    }
    return true;
  }
  return false;
}

/**
 * Whether a pattern matches a notice: anywhere in the first `TEXT_LIMIT` characters of
 * its subject or of its text.
 */
function matchesText(pattern: Pattern, n: PreparedNotice): boolean {
  const [subject, text] = patternTexts(n);
  return pattern.test(subject) || pattern.test(text);
}

function patternTexts(n: PreparedNotice): readonly [string, string] {
  n.patternTexts ??= [patternText(n.notice.subject), patternText(n.notice.notice)];
  return n.patternTexts;
}

/**
 * The patterns of `set` that match a notice, by their index in `set.sources`: one pass over
 * its subject and one over its text, whatever their number. Null when the set could not
 * tell; each pattern must then be asked alone.
 */
export function matchingPatterns(set: PatternSet, n: PreparedNotice): number[] | null {
  const [subject, text] = patternTexts(n);
  const inSubject = set.match(subject);
  if (!inSubject || inSubject.length === set.sources.length) return inSubject;
  const inText = set.match(text);
  if (!inText) return null;
  return inSubject.length === 0 ? inText : [...inSubject, ...inText];
}

/** A list matcher compiled once. */
export type ListMatcher = (value: PreparedValue) => boolean;

/** Compiles a list of entries into a matcher of the whole-word semantics. */
export function listMatcher(entries: readonly string[]): ListMatcher {
  const exact = new Set(entries.map((e) => e.trim().toLowerCase()));
  const single = new Set<string>();
  const multi: string[][] = [];
  for (const e of entries) {
    const w = words(e);
    if (w.length === 1) single.add(w[0]);
    else if (w.length > 1) multi.push(w);
  }
  return (value) => {
    if (exact.has(value.lower)) return true;
    for (const w of single) if (value.wordSet.has(w)) return true;
    for (const m of multi) if (containsWords(value.words, m)) return true;
    return false;
  };
}

/** A list matcher for plain strings (locations, flows, cycles). */
export function textListMatcher(entries: readonly string[]): (value: string) => boolean {
  const m = listMatcher(entries);
  return (value) => m(prepareValue(value));
}

/** Why a filter did not match: the first field that failed. */
export type Mismatch = 'pipelines' | 'types' | 'categories' | 'statuses' | 'text';

/** A filter compiled once: returns the field that failed, or null when the notice matches. */
export type CompiledFilter = (notice: PreparedNotice) => Mismatch | null;

/**
 * A filter in two parts: the list fields, whose verdict depends only on a notice's
 * pipeline, type, category and status (see `fieldsKey`), and the text regex, which
 * depends on the notice itself.
 */
export interface FilterParts {
  fields: CompiledFilter;
  text: TextFilter | undefined;
}

/** A filter's text pattern: its check, and its regex source. */
export interface TextFilter {
  test: (notice: PreparedNotice) => boolean;
  source: string;
}

/** Compiles a notice filter into its two parts. */
export function compileFilterParts(filter: NoticeFilter): FilterParts {
  const checks: Array<[Mismatch, (n: PreparedNotice) => boolean]> = [];
  if (filter.pipelines) {
    const m = listMatcher(filter.pipelines);
    checks.push(['pipelines', (n) => m(n.pipeline)]);
  }
  if (filter.types) {
    const m = listMatcher(filter.types);
    checks.push(['types', (n) => m(n.type)]);
  }
  if (filter.categories) {
    const m = listMatcher(filter.categories);
    checks.push(['categories', (n) => m(n.category)]);
  }
  if (filter.statuses) {
    const m = listMatcher(filter.statuses);
    checks.push(['statuses', (n) => m(n.status)]);
  }
  let text: FilterParts['text'];
  if (filter.text !== undefined) {
    const source = filter.text;
    const pattern = compilePattern(source);
    text = {
      source,
      test: (n) => {
        let hit = n.texts.get(source);
        if (hit === undefined) {
          hit = matchesText(pattern, n);
          n.texts.set(source, hit);
        }
        return hit;
      },
    };
  }
  return {
    fields: (notice) => {
      for (const [field, check] of checks) if (!check(notice)) return field;
      return null;
    },
    text,
  };
}

/** Compiles a notice filter. An empty filter matches every notice. */
export function compileFilter(filter: NoticeFilter): CompiledFilter {
  return joinParts(compileFilterParts(filter));
}

/** A filter's two parts as one check: the list fields first, then the text. */
export function joinParts({ fields, text }: FilterParts): CompiledFilter {
  return (notice) => fields(notice) ?? (text && !text.test(notice) ? 'text' : null);
}

/**
 * What the list fields of a filter read: notices with the same key get the same verdict
 * from them (list matching depends only on the lower-cased value).
 */
export function fieldsKey(n: PreparedNotice): string {
  return `${n.pipeline.lower}\u0000${n.type.lower}\u0000${n.category.lower}\u0000${n.status.lower}`;
}

/** Something with a notice filter, to index. */
export interface Filtered {
  filter: NoticeFilter;
}

const ANY = '*';

/**
 * An index of rules by the first word of each `pipelines` and each `types` entry, so
 * that a notice is checked only against rules that can match it: with thousands of rules
 * spread over pipelines and types, each notice still meets a handful. An entry matches a
 * value only if its first word is one of the value's (or it has no word: then it is
 * under every key), so a rule whose pipelines and types match a notice is always among
 * its candidates: a rule left out fails on its pipelines or its types.
 */
export class FilterIndex<R extends Filtered> {
  private readonly buckets = new Map<string, R[]>();

  constructor(rules: readonly R[]) {
    for (const rule of rules) this.add(rule);
  }

  /** Indexes one more rule, after those indexed. */
  add(rule: R): void {
    const pipelines = rule.filter.pipelines?.map((p) => words(p)[0] ?? ANY) ?? [ANY];
    const typeWords = rule.filter.types?.map((t) => words(t)[0] ?? ANY) ?? [ANY];
    for (const p of new Set(pipelines)) {
      for (const t of new Set(typeWords)) {
        const key = `${p}\u0000${t}`;
        const bucket = this.buckets.get(key);
        if (bucket) bucket.push(rule);
        else this.buckets.set(key, [rule]);
      }
    }
  }

  /** The rules that may match a notice (a superset of those that do), each once. */
  candidates(notice: PreparedNotice): R[] {
    const out: R[] = [];
    let seen: Set<R> | undefined;
    let buckets = 0;
    const typeWords = [...notice.type.wordSet, ANY];
    for (const p of [...notice.pipeline.wordSet, ANY]) {
      for (const t of typeWords) {
        const bucket = this.buckets.get(`${p}\u0000${t}`);
        if (!bucket) continue;
        buckets++;
        if (buckets === 1) {
          out.push(...bucket);
          continue;
        }
        seen ??= new Set(out);
        for (const rule of bucket) {
          if (!seen.has(rule)) {
            seen.add(rule);
            out.push(rule);
          }
        }
      }
    }
    return out;
  }
}
