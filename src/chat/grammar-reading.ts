/**
 * Reading the words after a verb: sorting them into positional words and `key:value`
 * options, then each value as what it stands for (a pipeline the store knows, a notice
 * type, a number, an id), with the problems of the words that are none, and, for a rule
 * command, where each value of its rule was written.
 */
import { words as wordsOf } from '../rules/match.js';
import type { ChatVocabulary, Spans, Verb } from './commands.js';
import {
  type ChatProblem,
  endColumn,
  nearest,
  suggester,
  type Word,
  type WordPart,
} from './words.js';

/** A `key:value` option of a command, its key as the command knows it. */
export interface ChatOption {
  key: string;
  /** The word that names it (`type:constraint`, or `type:` before its value). */
  word: Word;
  value: WordPart;
  items: WordPart[];
}

/** What a command's words after its verb say: positional words, and options by key. */
export interface ChatArguments {
  positionals: Word[];
  options: Map<string, ChatOption>;
  /** Every known key written, with a value or not, so that it is not also reported missing. */
  written: Set<string>;
}

/** The options one command takes. */
export interface OptionSpec {
  /** `subscribe`, for messages. */
  verb: string;
  keys: readonly string[];
  /** Other spellings of a key (`types` → `type`). */
  aliases?: Readonly<Record<string, string>>;
  /** Keys whose value is a list, which a trailing comma continues into the next word. */
  lists?: readonly string[];
  /** Keys also written as a word of their own before their value (`for 4h`). */
  bare?: readonly string[];
  /** Keys usage shows as words of their own (PIPELINES, `for 4h`), not among the options. */
  unlisted?: readonly string[];
  /** Keys of the other commands, answered with this command's keys rather than a guess. */
  elsewhere: readonly string[];
}

/**
 * Sorts the words after a verb into positionals and options. `type: constraint` (a space
 * after the colon) and `type:constraint, critical` (a space after a comma) are one option.
 * An unknown key, a key given twice or a key with no value is a problem.
 */
export function collectArguments(
  words: readonly Word[],
  spec: OptionSpec,
  problems: ChatProblem[],
): ChatArguments {
  const positionals: Word[] = [];
  const options = new Map<string, ChatOption>();
  const written = new Set<string>();
  const plain = (w: Word | undefined) => w !== undefined && w.key === undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const bareKey = !w.quoted && spec.bare?.find((k) => k === w.text.toLowerCase());
    const typed = w.key ?? (bareKey || undefined);
    if (typed === undefined) {
      positionals.push(w);
      continue;
    }
    const key = spec.aliases?.[typed] ?? typed;
    if (!spec.keys.includes(key)) {
      problems.push(unknownKey(w, typed, spec));
      // Its value, written after a space, is no positional word.
      if (w.value.raw === '' && plain(words[i + 1])) i++;
      else while (words[i].continues && plain(words[i + 1])) i++;
      continue;
    }
    written.add(key);
    let { value, items, continues } =
      w.key === undefined ? { value: nothingAfter(w), items: [], continues: false } : w;
    if (value.raw === '' && plain(words[i + 1])) ({ value, items, continues } = words[++i]);
    while (spec.lists?.includes(key) && continues && plain(words[i + 1])) {
      const next = words[++i];
      items = [...items, ...next.items];
      continues = next.continues;
    }
    if (value.raw === '') {
      problems.push({
        message:
          w.key === undefined
            ? `${typed} needs a value: ${typed} 4h`
            : `${typed}: needs a value after the colon`,
        word: w.raw,
        column: w.column,
      });
    } else if (options.has(key)) {
      problems.push({
        message: `${key}: is given twice; give it once${
          spec.lists?.includes(key) ? `, with its values separated by commas: ${key}:a,b` : ''
        }`,
        word: w.raw,
        column: w.column,
      });
    } else {
      options.set(key, { key, word: w, value, items });
    }
  }
  return { positionals, options, written };
}

function nothingAfter(w: Word): WordPart {
  return { text: '', raw: '', column: endColumn(w), quoted: false };
}

function unknownKey(w: Word, key: string, spec: OptionSpec): ChatProblem {
  const keys = spec.keys.filter((k) => !spec.unlisted?.includes(k));
  const theirs = keys.length ? `; its options are ${keys.map((k) => `${k}:`).join(' ')}` : '';
  const at = { word: w.raw, column: w.column };
  if (spec.elsewhere.includes(key))
    return { message: `${spec.verb} takes no ${key}:${theirs}`, ...at };
  const meant = nearest(key, [...spec.keys, ...Object.keys(spec.aliases ?? {})]);
  const canonical = meant === undefined ? undefined : (spec.aliases?.[meant] ?? meant);
  if (canonical === undefined) {
    return { message: `unknown option ${key}:${theirs || `; ${spec.verb} takes none`}`, ...at };
  }
  return {
    message: `unknown option ${key}: — did you mean ${canonical}:?`,
    ...at,
    suggestion: canonical,
  };
}

const NUMBER = /^([+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(%?)$/;
const ID = /^#?(\d+)$/;

/** How many unknown names of one command get a "did you mean": a reply lists no more. */
const GUESSES = 20;

const didYouMean = (meant: string | undefined) => (meant ? ` — did you mean '${meant}'?` : '');

/** One command being read: its problems, and where each value of its rule was written. */
export class Reading {
  readonly problems: ChatProblem[] = [];
  readonly spans: Spans = new Map();
  constructor(
    readonly vocabulary: ChatVocabulary,
    readonly verb: Verb,
    readonly args: ChatArguments,
    /** Just past the last word, where something missing is reported. */
    readonly end: number,
  ) {}

  problem(at: WordPart, message: string, suggestion?: string): void {
    const meant = suggestion === undefined ? {} : { suggestion };
    this.problems.push({ message, word: at.raw, column: at.column, ...meant });
  }

  missing(message: string): void {
    this.problems.push({ message, word: '', column: this.end });
  }

  span(path: string, at: WordPart, label: string): void {
    this.spans.set(path, { word: at.raw, column: at.column, label });
  }

  /** The values of a list option, lower-cased or not, each kept with its place. */
  list(option: ChatOption, path: string, lower: boolean): string[] {
    this.span(path, option.word, option.key);
    option.items.forEach((item, i) => {
      this.span(`${path}.${i}`, item, option.key);
    });
    return option.items.map((i) => (lower ? i.text.trim().toLowerCase() : i.text.trim()));
  }

  /** The words of a slot: the option that names it, or else the next positional word. */
  slot(key: string): (WordPart & Pick<ChatOption, 'value' | 'items'>) | undefined {
    const option = this.args.options.get(key);
    if (option) return { ...option.word, value: option.value, items: option.items };
    return this.args.positionals.shift();
  }

  /** The positional words no place took. */
  extra(hint = ''): void {
    for (const w of this.args.positionals) this.problem(w, `unexpected word '${w.raw}'${hint}`);
  }

  private guesses = 0;

  /** What `word` was meant to be, for the first `GUESSES` words that need it. */
  private guess(meant: (word: string) => string | undefined, word: string): string | undefined {
    return this.guesses++ < GUESSES ? meant(word) : undefined;
  }

  private knownPipelines?: { slugs: Set<string>; meant: (slug: string) => string | undefined };

  /** A pipeline slug, lower-cased; a problem when the store knows the pipelines, not this one. */
  pipeline(at: WordPart): string {
    const slug = at.text.trim().toLowerCase();
    const slugs = this.vocabulary.pipelines.map((p) => p.toLowerCase());
    this.knownPipelines ??= { slugs: new Set(slugs), meant: suggester(slugs) };
    if (slugs.length > 0 && !this.knownPipelines.slugs.has(slug)) {
      const meant = this.guess(this.knownPipelines.meant, slug);
      this.problem(at, `unknown pipeline '${at.text}'${didYouMean(meant)}`, meant);
    }
    return slug;
  }

  /** PIPELINES of `subscribe` and `remind` into `section`: slugs, or none for `all`. */
  pipelines(section: string, into: Record<string, unknown>): void {
    const items = [
      ...this.args.positionals.flatMap((w) => w.items),
      ...(this.args.options.get('pipelines')?.items ?? []),
    ];
    const all = items.filter((i) => i.text.toLowerCase() === 'all');
    if (all.length > 0) {
      if (all.length < items.length) {
        this.problem(all[0], "'all' means every pipeline: give either all or pipeline slugs");
      }
      return;
    }
    if (items.length === 0) {
      this.missing(`${this.verb} needs pipelines: slugs such as transco, or all`);
      return;
    }
    items.forEach((item, i) => {
      this.span(`${section}.pipelines.${i}`, item, `pipeline '${item.text}'`);
    });
    this.span(`${section}.pipelines`, items[0], 'pipelines');
    into.pipelines = items.map((item) => this.pipeline(item));
  }

  /** `type:`, `category:`, `status:`: each value checked against what the store knows. */
  entries(into: Record<string, unknown>): void {
    const lists = [
      ['type', 'types', 'notice type'],
      ['category', 'categories', 'category'],
      ['status', 'statuses', 'status'],
    ] as const;
    for (const [key, field, noun] of lists) {
      const option = this.args.options.get(key);
      if (!option) continue;
      into[field] = this.list(option, `notices.${field}`, false);
      const known = this.vocabulary[field];
      if (known.length === 0) continue;
      const vocabulary = known.map((k) => wordsOf(k));
      const meantOf = suggester([...new Set([...known, ...vocabulary.flat()])]);
      for (const item of option.items) {
        const entry = wordsOf(item.text);
        if (vocabulary.some((v) => containsWords(v, entry))) continue;
        const meant = this.guess(meantOf, item.text);
        this.problem(item, `unknown ${noun} '${item.text}'${didYouMean(meant)}`, meant);
      }
    }
  }

  /** `100000`, `100,000`, `2.5`, `10%`: a number, and whether it is a percentage. */
  amount(option: ChatOption): { value: number; percent: boolean } | undefined {
    const m = NUMBER.exec(option.value.text.trim());
    if (m) return { value: Number(m[1].replaceAll(',', '')), percent: m[2] === '%' };
    this.problem(
      option.value,
      `${option.key}: '${option.value.text}' is not a number; write 100000 or 100,000 (Dth), or 10% (of OPC)`,
    );
    return undefined;
  }

  /** An id as `list` shows it: `12` or `#12`. */
  id(at: WordPart): number | undefined {
    const m = ID.exec(at.text.trim());
    const n = m ? Number(m[1]) : Number.NaN;
    if (Number.isSafeInteger(n) && n > 0) return n;
    this.problem(
      at,
      `'${at.text}' is not an id: ids are numbers such as 12 or #12, as list shows them`,
    );
    return undefined;
  }
}

/** Whether an entry matches a value the way rule lists do: equal to it, or its whole words. */
function containsWords(value: readonly string[], entry: readonly string[]): boolean {
  outer: for (let i = 0; i + entry.length <= value.length; i++) {
    for (let j = 0; j < entry.length; j++) if (value[i + j] !== entry[j]) continue outer;
    return true;
  }
  return false;
}
