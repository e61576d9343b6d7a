/**
 * The words of a chat command, as a person types them in a chat box: split at spaces,
 * values with spaces in quotes (straight, or the curly quotes chat clients put in their
 * place), `key:value` options, lists separated by commas. Each word and each list item
 * keeps the column it was typed at, so that a problem can point at it; and the word a
 * misspelt one was meant to be.
 */
import { suggest } from '../lib/suggest.js';

/** Something wrong with one word of a command, where it was typed. */
export interface ChatProblem {
  /** One line, naming what is wrong. */
  message: string;
  /** The word as typed (empty for something missing at the end). */
  word: string;
  /** 1-based, in characters of the command text (code points, as the eye counts them). */
  column: number;
  /** The word most likely meant, when one is close. */
  suggestion?: string;
}

/** A stretch of a word: its text without quotes, as typed, and where. */
export interface WordPart {
  text: string;
  raw: string;
  column: number;
  /** Written in quotes, wholly or in part. */
  quoted: boolean;
}

/** One word of a command. */
export interface Word extends WordPart {
  /** Lower-cased `key` of a `key:value` word. */
  key?: string;
  /** What follows the colon of a `key:value` word, or the whole word; commas kept. */
  value: WordPart;
  /** The value split at the commas outside quotes; empty items dropped. */
  items: WordPart[];
  /** The value ends with a comma outside quotes: the list goes on in the next word. */
  continues: boolean;
}

interface Cell {
  ch: string;
  column: number;
  /** Inside quotes. */
  quoted: boolean;
  /** A quote mark itself. */
  mark: boolean;
}

const DOUBLE = '"“”„‟';
const SINGLE = "'‘’‚‛";
const KEY = /^[a-z][a-z_-]*$/i;

const space = (ch: string | undefined) => ch !== undefined && /\s/u.test(ch);
const family = (ch: string) => (DOUBLE.includes(ch) ? DOUBLE : SINGLE.includes(ch) ? SINGLE : '');

/**
 * Where the quote opened at `open` closes: the first closing mark of its kind followed by
 * a space, a comma or the end (so that the apostrophe in ‘St. Mary’s’ does not close it),
 * else the first mark of its kind, else -1.
 */
function closing(chars: readonly string[], open: number): number {
  const marks = family(chars[open]);
  let first = -1;
  for (let j = open + 1; j < chars.length; j++) {
    if (!marks.includes(chars[j])) continue;
    if (first < 0) first = j;
    const next = chars[j + 1];
    if (next === undefined || space(next) || next === ',') return j;
  }
  return first;
}

function part(cells: readonly Cell[], fallbackColumn: number): WordPart {
  return {
    text: cells
      .filter((c) => !c.mark)
      .map((c) => c.ch)
      .join(''),
    raw: cells.map((c) => c.ch).join(''),
    column: cells[0]?.column ?? fallbackColumn,
    quoted: cells.some((c) => c.mark),
  };
}

const bare = (c: Cell, ch: string) => c.ch === ch && !c.quoted && !c.mark;

function word(cells: Cell[]): Word {
  const colon = cells.findIndex((c) => bare(c, ':'));
  const head = colon > 0 ? cells.slice(0, colon) : [];
  const isKey = head.every((c) => !c.quoted && !c.mark) && KEY.test(part(head, 0).text);
  const valueCells = isKey ? cells.slice(colon + 1) : cells;
  const items: WordPart[] = [];
  let start = 0;
  for (let i = 0; i <= valueCells.length; i++) {
    if (i < valueCells.length && !bare(valueCells[i], ',')) continue;
    if (i > start) items.push(part(valueCells.slice(start, i), 0));
    start = i + 1;
  }
  const whole = part(cells, 0);
  const value = part(valueCells, whole.column + whole.raw.length);
  const last = valueCells.at(-1);
  return {
    ...whole,
    ...(isKey ? { key: part(head, 0).text.toLowerCase() } : {}),
    value,
    items,
    continues: last !== undefined && bare(last, ','),
  };
}

/**
 * The words of `text`, or the problem of a quote never closed. A quote opens a quoted
 * stretch only at the start of a word, a value or a list item; elsewhere it is a letter.
 */
export function splitWords(text: string): { words: Word[]; problems: ChatProblem[] } {
  const chars = Array.from(text);
  const words: Word[] = [];
  let i = 0;
  while (i < chars.length) {
    if (space(chars[i])) {
      i++;
      continue;
    }
    const cells: Cell[] = [];
    while (i < chars.length && !space(chars[i])) {
      const ch = chars[i];
      const prev = cells.at(-1);
      const opens = family(ch) !== '' && (!prev || bare(prev, ':') || bare(prev, ','));
      if (!opens) {
        cells.push({ ch, column: i + 1, quoted: false, mark: false });
        i++;
        continue;
      }
      const close = closing(chars, i);
      if (close < 0) {
        const message = `the quote ${ch} is never closed: end the value with ${family(ch)[0] === '"' ? '"' : "'"}`;
        return { words, problems: [{ message, word: chars.slice(i).join(''), column: i + 1 }] };
      }
      cells.push({ ch, column: i + 1, quoted: false, mark: true });
      for (let j = i + 1; j < close; j++) {
        cells.push({ ch: chars[j], column: j + 1, quoted: true, mark: false });
      }
      cells.push({ ch: chars[close], column: close + 1, quoted: false, mark: true });
      i = close + 1;
    }
    words.push(word(cells));
  }
  return { words, problems: [] };
}

/** Where a word ends, as a column: just past its last character. */
export function endColumn(w: WordPart): number {
  return w.column + Array.from(w.raw).length;
}

/** `suggest`'s view of a word: case, spaces and `-` versus `_` do not count. */
const normalise = (w: string) =>
  w
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/**
 * `suggest` over `candidates`, asked only about those whose length is within its reach of
 * the word's: no edit distance is worked out for one that could not be close, so a long
 * command full of unknown words is answered at once, whatever the store knows. Made once
 * for a list that many words are looked up in.
 */
export function suggester(candidates: readonly string[]): (word: string) => string | undefined {
  const lengths = candidates.map((c) => normalise(c).length);
  return (word) => {
    const length = normalise(word).length;
    const reach = Math.max(1, Math.floor(length / 3));
    return suggest(
      word,
      candidates.filter((_, i) => Math.abs(lengths[i] - length) <= reach),
    );
  };
}

/** The candidate `word` most likely meant, as `suggester` finds it. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  return suggester(candidates)(word);
}
