/**
 * Matching notices against rule filters, with the semantics of the rule files: a list
 * entry matches a value equal to it or containing it as whole words, case-insensitively,
 * where a word is a run of letters, digits and hyphens. `constraint` matches
 * `Capacity Constraint` but not `Unconstrained`; `critical` matches `CRITICAL` but not
 * `Non-Critical`.
 */
import type { Notice } from '../upstream/schemas.js';
import type { NoticeFilter } from './types.js';

const WORD = /[\p{L}\p{N}-]+/gu;

/** The words of a text, lower-cased. */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Whether `entry`'s words appear, in order and adjacent, among `valueWords`. */
function containsWords(valueWords: readonly string[], entryWords: readonly string[]): boolean {
  if (entryWords.length === 0) return false;
  outer: for (let i = 0; i + entryWords.length <= valueWords.length; i++) {
    for (let j = 0; j < entryWords.length; j++) {
      if (valueWords[i + j] !== entryWords[j]) continue outer;
    }
    return true;
  }
  return false;
}

/** A list matcher compiled once. */
export type ListMatcher = (value: string) => boolean;

/** Compiles a list of entries into a matcher of the whole-word semantics. */
export function listMatcher(entries: readonly string[]): ListMatcher {
  const compiled = entries.map((e) => ({ exact: e.trim().toLowerCase(), words: words(e) }));
  return (value) => {
    const lower = value.trim().toLowerCase();
    const valueWords = words(value);
    return compiled.some((e) => e.exact === lower || containsWords(valueWords, e.words));
  };
}

/** Why a filter did not match: the first field that failed. */
export type Mismatch = 'pipelines' | 'types' | 'categories' | 'statuses' | 'text';

/** A filter compiled once: returns the field that failed, or null when the notice matches. */
export type CompiledFilter = (notice: Notice) => Mismatch | null;

/** Compiles a notice filter. An empty filter matches every notice. */
export function compileFilter(filter: NoticeFilter): CompiledFilter {
  const checks: Array<[Mismatch, (n: Notice) => boolean]> = [];
  if (filter.pipelines) {
    const m = listMatcher(filter.pipelines);
    checks.push(['pipelines', (n) => m(n.pipeline_slug)]);
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
  if (filter.text !== undefined) {
    const re = new RegExp(filter.text, 'i');
    checks.push(['text', (n) => re.test(n.subject) || re.test(n.notice)]);
  }
  return (notice) => {
    for (const [field, check] of checks) if (!check(notice)) return field;
    return null;
  };
}

/** Something with a notice filter, to index. */
export interface Filtered {
  filter: NoticeFilter;
}

const ANY = '*';

/**
 * An index of rules by pipeline and by the first word of each `types` entry, so that a
 * notice is checked only against rules that can match it: with thousands of rules spread
 * over pipelines and types, each notice still meets a handful.
 */
export class FilterIndex<R extends Filtered> {
  private readonly buckets = new Map<string, R[]>();

  constructor(readonly rules: readonly R[]) {
    for (const rule of rules) {
      const pipelines = rule.filter.pipelines?.map((p) => p.trim().toLowerCase()) ?? [ANY];
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
  }

  /** The rules that may match a notice (a superset of those that do), each once. */
  candidates(notice: Notice): R[] {
    const pipelines = [notice.pipeline_slug.toLowerCase(), ANY];
    const typeWords = [...new Set(words(notice.type)), ANY];
    const seen = new Set<R>();
    const out: R[] = [];
    for (const p of pipelines) {
      for (const t of typeWords) {
        for (const rule of this.buckets.get(`${p}\u0000${t}`) ?? []) {
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
