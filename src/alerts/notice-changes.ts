/**
 * What changed in a notice, as a reader sees it: `Status: Initiate → Revised`, a time
 * moved, the words of the text added and removed with a little context. Computed once,
 * when the alert is decided, and carried on the payload (`changes`), so every channel
 * shows the same list and a webhook receiver gets it structured. Fields no reader looks
 * at (the HTML and mobile copies of the text, the API's own bookkeeping) are left out.
 *
 * Notice text is hostile and may be huge: the texts compared are cut to `INPUT_MAX`
 * characters, the word diff gives up past `MAX_EDITS` edits or `DIFF_TIMEOUT_MS`, and what
 * it keeps is cut to `OUTPUT_MAX` characters, so a 200 KB notice costs a bounded diff and
 * makes a bounded message.
 */
import { diffWords } from 'diff';
import { isOpenEnded } from '../domain/open-ended.js';
import { noticeText } from '../lib/html-text.js';
import type { UtcIso } from '../lib/time.js';
import { isPrunedText } from '../store/notices.js';
import type { Notice } from '../upstream/schemas.js';
import type { NoticeChange, TimeChange, ValueChange, WordPart } from './payload.js';

/** Characters of each text compared. */
export const INPUT_MAX = 10_000;
/** Characters of HTML converted to text to compare, when a notice has only HTML. */
const HTML_MAX = 2 * INPUT_MAX;
/** Edits past which two texts are too different to show word by word. */
export const MAX_EDITS = 200;
/** Time past which the diff gives up whatever the texts: a backstop, wall time on a machine maybe busy; `MAX_EDITS` is the bound. */
const DIFF_TIMEOUT_MS = 1_000;
/** Characters of words kept, context included, over all parts. */
export const OUTPUT_MAX = 600;
/** Unchanged words kept on each side of a change. */
export const CONTEXT_WORDS = 4;
/** Characters of a value (a subject, a status) before or after. */
export const VALUE_MAX = 300;

const VALUES: ReadonlyArray<[ValueChange['field'], string]> = [
  ['status', 'Status'],
  ['type', 'Type'],
  ['category', 'Category'],
  ['subject', 'Subject'],
  ['identifier', 'Notice ID'],
];

const TIMES: ReadonlyArray<[TimeChange['field'], string]> = [
  ['posted_at', 'Posted'],
  ['effective_at', 'Effective'],
  ['end_at', 'Ends'],
  ['response_at', 'Response due'],
];

/**
 * What is compared: `version`, another version of the same notice (every field a
 * reader sees), or `superseded`, the notice it replaces (its own number and posting time
 * differ by nature and are left out).
 */
export type Comparison = 'version' | 'superseded';

/** What changed from `before` to `after`, in reading order; empty when nothing a reader sees did. */
export function noticeChanges(
  before: Notice,
  after: Notice,
  comparison: Comparison = 'version',
): NoticeChange[] {
  // A text retention pruned is not known: there is nothing to compare it with.
  const texts = !isPrunedText(before.notice) && !isPrunedText(after.notice);
  const out: NoticeChange[] = [];
  for (const [field, label] of VALUES) {
    if (comparison === 'superseded' && field === 'identifier') continue;
    const was = oneLine(before[field]);
    const now = oneLine(after[field]);
    if (was !== now) out.push({ kind: 'value', field, label, before: was, after: now });
  }
  for (const [field, label] of TIMES) {
    if (comparison === 'superseded' && field === 'posted_at') continue;
    const change = timeChange(field, label, before, after);
    if (change) out.push(change);
  }
  const text = texts ? textChange(comparedText(before), comparedText(after)) : undefined;
  if (text) out.push(text);
  return out;
}

function timeChange(
  field: TimeChange['field'],
  label: string,
  before: Notice,
  after: Notice,
): TimeChange | undefined {
  const openBefore = field === 'end_at' && isOpenEnded(before);
  const openAfter = field === 'end_at' && isOpenEnded(after);
  const was = openBefore ? null : instant(before[field]);
  const now = openAfter ? null : instant(after[field]);
  // Times are shown to the minute: seconds moved are no move a reader could see.
  if (was?.slice(0, 16) === now?.slice(0, 16) && openBefore === openAfter) return undefined;
  return {
    kind: 'time',
    field,
    label,
    before: was,
    after: now,
    ...(openBefore ? { open_ended_before: true as const } : {}),
    ...(openAfter ? { open_ended_after: true as const } : {}),
  };
}

/** The same instant however the API wrote it (`…:00Z`, `….000Z`), so only a move counts. */
function instant(value: string | null): UtcIso | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms)
    ? (value as UtcIso)
    : (`${new Date(ms).toISOString().slice(0, 19)}Z` as UtcIso);
}

/** The text compared: the notice's text, or its HTML as text, cut to `INPUT_MAX`. */
function comparedText(n: Notice): { text: string; cut: boolean } {
  const fromHtml = n.notice.trim() === '';
  const text = fromHtml
    ? noticeText({ notice: '', html: n.html.slice(0, HTML_MAX) })
    : noticeText({ notice: n.notice.slice(0, INPUT_MAX + 1), html: '' });
  if (text.length > INPUT_MAX)
    return { text: text.slice(0, text.lastIndexOf(' ', INPUT_MAX) + 1 || INPUT_MAX), cut: true };
  return { text, cut: fromHtml && n.html.length > HTML_MAX };
}

/**
 * The words added and removed between two texts, with `CONTEXT_WORDS` unchanged words
 * around each change; undefined when only spacing changed.
 */
export function textChange(
  before: { text: string; cut: boolean },
  after: { text: string; cut: boolean },
): NoticeChange | undefined {
  if (squash(before.text) === squash(after.text)) return undefined;
  const diff = diffWords(before.text, after.text, {
    maxEditLength: MAX_EDITS,
    timeout: DIFF_TIMEOUT_MS,
  });
  const base = { kind: 'text' as const, field: 'notice' as const, label: 'Text' };
  if (!diff) return { ...base, parts: [], added: 0, removed: 0, complete: false };
  let added = 0;
  let removed = 0;
  const runs: WordPart[] = [];
  for (const d of diff) {
    const op = d.added ? 'added' : d.removed ? 'removed' : 'same';
    // One space stays where there was spacing: it tells `gas day 23` from `23%`.
    const text = d.value.replace(SPACE, ' ');
    if (text.trim() === '') continue;
    if (op === 'added') added += wordCount(text);
    if (op === 'removed') removed += wordCount(text);
    runs.push({ op, text });
  }
  if (added + removed === 0) return undefined;
  const { parts, cut } = trimmed(runs);
  return { ...base, parts, added, removed, complete: !cut && !before.cut && !after.cut };
}

/**
 * The runs with unchanged ones cut to their words next to a change (`…` for the rest),
 * at most `OUTPUT_MAX` characters in all; `cut` when a change was left out or shortened.
 */
function trimmed(runs: readonly WordPart[]): { parts: WordPart[]; cut: boolean } {
  const parts: WordPart[] = [];
  let room = OUTPUT_MAX;
  for (const [i, run] of runs.entries()) {
    const text = run.op === 'same' ? context(run.text, i > 0, i < runs.length - 1) : run.text;
    if (text.length > room) {
      // A change cut short still shows where it starts; context cut short shows nothing.
      if (run.op !== 'same' && room > 20)
        parts.push({ op: run.op, text: `${cutAt(text, room)} …` });
      return { parts, cut: true };
    }
    parts.push({ op: run.op, text });
    room -= text.length;
  }
  return { parts, cut: false };
}

/**
 * An unchanged run: its first words after a change, its last words before the next one,
 * `…` for the rest. The space at either end, which separates it from a change, stays.
 */
function context(text: string, afterChange: boolean, beforeChange: boolean): string {
  const words = text.trim().split(' ');
  const keep = (afterChange ? CONTEXT_WORDS : 0) + (beforeChange ? CONTEXT_WORDS : 0);
  if (words.length <= keep) return text;
  const head = afterChange ? words.slice(0, CONTEXT_WORDS) : [];
  const tail = beforeChange ? words.slice(-CONTEXT_WORDS) : [];
  const lead = afterChange && text.startsWith(' ') ? ' ' : '';
  const trail = beforeChange && text.endsWith(' ') ? ' ' : '';
  return `${lead}${[...head, '…', ...tail].join(' ')}${trail}`;
}

/** At most `max` characters, at a space when there is one. */
function cutAt(text: string, max: number): string {
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return space > max / 2 ? cut.slice(0, space) : cut;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const SPACE = /[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** Text on one line, each run of spacing and control characters one space. */
function squash(text: string): string {
  return text.replace(SPACE, ' ').trim();
}

function oneLine(text: string): string {
  const line = squash(text);
  return line.length > VALUE_MAX ? `${line.slice(0, VALUE_MAX - 1)}…` : line;
}

function wordCount(text: string): number {
  return text.split(' ').filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}
