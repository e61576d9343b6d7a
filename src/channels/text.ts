/**
 * Text every channel shares: a notice's body as plain text, clipping without breaking a
 * character, one-line text for titles and subjects, times in the pipeline's zone, and
 * the headline of an alert. Escaping for a platform's markup belongs to its channel.
 */
import type { AlertPayload, NoticeChange, SilenceSummary, WordPart } from '../alerts/payload.js';
import { isOpenEnded, UNTIL_FURTHER_NOTICE } from '../domain/open-ended.js';
import { inTimeLeft } from '../lib/duration.js';
import { BIDI } from '../lib/terminal.js';
import { zoneFormat } from '../lib/zone-format.js';
import type { Notice } from '../upstream/schemas.js';

const ELLIPSIS = '…';

export { htmlToText, noticeText } from '../lib/html-text.js';

/**
 * At most `max` characters (UTF-16 code units, which is how Slack and Discord count),
 * cut at a code point boundary and ending in `…` when cut.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - ELLIPSIS.length;
  // Do not split a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end) + ELLIPSIS;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/**
 * One line: control characters (CR and LF included, and the C1 controls a terminal may
 * read as escape sequences) become spaces, runs of space one; bidirectional controls,
 * which would show the rest of the line reversed, are removed.
 */
export function oneLine(text: string): string {
  return text.replace(BIDI, '').replace(CONTROL, ' ').replace(/ {2,}/g, ' ').trim();
}

const localFormat = zoneFormat({
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});

/** `Fri, Nov 20, 2026, 9:00 AM CST`: a UTC instant shown in a zone. */
export function localTime(iso: string, zone: string): string {
  return localFormat(zone).format(new Date(iso));
}

/** The pipeline's display name. */
export function pipelineName(p: AlertPayload): string {
  return p.pipeline.name || p.pipeline.slug;
}

/**
 * The alert in one line, without the pipeline: the notice's type and subject, the
 * reminder, or the capacity state. Upstream text, not escaped. A reminder says how long
 * is left at `now` (the send time); without `now` it names its offset instead.
 *  - `Capacity Constraint: Station 165 limited`
 *  - `Updated Capacity Constraint: Station 165 limited`
 *  - `Response due in 1 h 30 min: OFO for Nov 21`
 *  - `Low OAC at 17 locations — timely cycle, gas day 2026-11-21`
 *  - `OAC recovered at STATION 85 — id1 cycle, gas day 2026-11-21`
 *  - `The API's catalog for notices changed: …` (operations)
 *  - `Silence #12 ended — while muted: 4 alerts`
 */
export function headline(p: AlertPayload, now?: string): string {
  if (p.kind === 'operations' && p.operations) return oneLine(p.operations.summary);
  if (p.kind === 'silence' && p.silence) return silenceHeadline(p.silence);
  if (p.kind === 'capacity' && p.capacity) {
    const c = p.capacity;
    return oneLine(
      `${capacityState(p)} at ${capacityWhere(c.locations)} — ${c.cycle} cycle, gas day ${c.gas_day}`,
    );
  }
  const n = p.notice;
  if (!n) return `${p.kind} ${p.state}`;
  if (p.kind === 'deadline' && p.deadline) return oneLine(`${deadlineLabel(p, now)}: ${n.subject}`);
  const type = oneLine(n.type) || 'Notice';
  const subject = subjectAfter(type, oneLine(n.subject));
  const said = subject ? `${type}: ${subject}` : type;
  // An escalation says first why it reaches someone new.
  const escalated = p.escalation ? `Not acknowledged in ${p.escalation.after}: ` : '';
  return oneLine(`${escalated}${p.state === 'updated' ? 'Updated ' : ''}${said}`);
}

/**
 * The subject without the type it begins with, so that the headline says the type once:
 * `Capacity Constraint - Station 165` after `Capacity Constraint` is `Station 165`. A
 * subject that only goes on with the same letters (`Maintenance Schedule` after
 * `Maintenance`) keeps them.
 */
export function subjectAfter(type: string, subject: string): string {
  const text = subject.trim();
  if (!type || text.slice(0, type.length).toLowerCase() !== type.toLowerCase()) return text;
  const rest = text.slice(type.length);
  const separated = /^\s*(?:[-\u2013\u2014:|/]+\s*|$)/.exec(rest);
  return separated ? rest.slice(separated[0].length) : text;
}

/** One fact of an operations alert: a text, or an instant each channel shows its own way. */
export type OperationFact = { label: string } & ({ text: string } | { at: string });

/**
 * The facts of an outage's operations alert (`alerts/outages.ts`) beyond its summary,
 * the same on every channel: what is out, since when, and why. Other operations alerts
 * have none here (Slack shows theirs in its own layout).
 */
export function operationFacts(p: AlertPayload): OperationFact[] {
  const o = p.kind === 'operations' ? p.operations : undefined;
  const since = (label: string, at: string | null): OperationFact =>
    at === null ? { label, text: 'none known' } : { label, at };
  switch (o?.event) {
    case 'feed-stale':
      return [
        { label: 'Feed', text: o.feed },
        since('Last success', o.last_success_at),
        {
          label: 'Last error',
          text: o.last_error
            ? `${o.last_error_code ? `${o.last_error_code}: ` : ''}${o.last_error}`
            : '-',
        },
      ];
    case 'feed-recovered':
      return [
        { label: 'Feed', text: o.feed },
        since('Last success before', o.last_success_at),
        { label: 'Found stale', at: o.stale_at },
      ];
    case 'target-dead':
      return [
        { label: 'Target', text: o.target },
        { label: 'Found', text: o.how === 'dead' ? 'an alert failed for good' : 'an alert stuck' },
        { label: 'Why', text: `${o.code ? `${o.code}: ` : ''}${o.reason}` },
      ];
    case 'target-recovered':
      return [
        { label: 'Target', text: o.target },
        { label: 'Failing since', at: o.dead_at },
      ];
    default:
      return [];
  }
}

/** What an outage's alert is about, `feed notices` or `target slack:#ops`, for a digest line. */
export function operationSubject(p: AlertPayload): string | undefined {
  const o = p.kind === 'operations' ? p.operations : undefined;
  if (o?.event === 'feed-stale' || o?.event === 'feed-recovered') return `feed ${o.feed}`;
  if (o?.event === 'target-dead' || o?.event === 'target-recovered') return `target ${o.target}`;
  return undefined;
}

/** `Silence #12 ended`, or `Silence #12 lifted` when someone ended it early. */
export function silenceEnded(s: Pick<SilenceSummary, 'id' | 'ended_by'>): string {
  return `Silence #${s.id} ${s.ended_by === 'lifted' ? 'lifted' : 'ended'}`;
}

/**
 * `Silence #12 ended — while muted: 4 alerts`: the end of a silence and what it held
 * back, the words its summary is known by.
 */
export function silenceHeadline(s: Pick<SilenceSummary, 'id' | 'ended_by' | 'held'>): string {
  return `${silenceEnded(s)} — while muted: ${s.held} alert${s.held === 1 ? '' : 's'}`;
}

/** `STATION 85` for one location (its name, else its identifier), else `17 locations`. */
export function capacityWhere(
  locations: ReadonlyArray<{ location: string; identifier: string }>,
): string {
  const [only] = locations;
  if (locations.length === 1 && only)
    return oneLine(only.location) || oneLine(only.identifier) || '1 location';
  return `${locations.length} locations`;
}

/** `Low OAC` or `OAC recovered`. */
export function capacityState(p: AlertPayload): string {
  return p.state === 'resolved' ? 'OAC recovered' : 'Low OAC';
}

/**
 * Milliseconds from `now` to the reminder's deadline, never below 0; undefined without
 * a deadline or a valid `now`.
 */
export function timeLeftMs(p: AlertPayload, now: string | undefined): number | undefined {
  if (!p.deadline || now === undefined) return undefined;
  const left = Date.parse(p.deadline.at) - Date.parse(now);
  return Number.isNaN(left) ? undefined : Math.max(0, left);
}

/**
 * What is due and how soon, without the subject: `Response due in 1 h 30 min`,
 * `Ends in 45 min (late)`, `Response due now` once the deadline is reached. A
 * reminder can go out after its offset (the notice arrived late), so the time left is
 * worked out from `now`; without `now` the offset is named: `Response due in 2h`.
 */
export function deadlineLabel(p: AlertPayload, now?: string): string {
  const d = p.deadline;
  if (!d) return 'Reminder';
  const label = DEADLINE_LABELS[d.field] ?? d.field;
  const left = timeLeftMs(p, now);
  const when = left === undefined ? `in ${d.before}` : inTimeLeft(left);
  return `${label} ${when}${d.late ? ' (late)' : ''}`;
}

/** How each deadline field reads: `Response due in 2h`. */
export const DEADLINE_LABELS: Record<string, string> = {
  response_at: 'Response due',
  effective_at: 'Effective',
  end_at: 'Ends',
};

/**
 * The name people use: the abbreviation a pipeline's full name ends with in brackets
 * (`Transcontinental Gas Pipe Line (Transco)` → `Transco`), else the full name.
 */
export function shortPipelineName(p: AlertPayload): string {
  const name = pipelineName(p);
  return /\(([^()]{2,40})\)\s*$/.exec(name)?.[1]?.trim() || name;
}

/**
 * `[Transco] Capacity Constraint: Station 165 limited`: an email subject, a title.
 * `now` as for `headline`.
 */
export function title(p: AlertPayload, now?: string): string {
  return oneLine(`[${shortPipelineName(p)}] ${headline(p, now)}`);
}

/** A notice time as a reader sees it: an instant each channel shows its own way, or words. */
export type NoticeTime = { label: string } & ({ at: string } | { text: string });

/**
 * The notice fields a reader looks for, in order, with their UTC instants; a placeholder
 * end far in the future (`domain/open-ended.ts`) is `until further notice`.
 */
export function noticeTimes(n: Notice): NoticeTime[] {
  const times: Array<{ label: string; at: string | null }> = [
    { label: 'Posted', at: n.posted_at },
    { label: 'Effective', at: n.effective_at },
    { label: 'Ends', at: n.end_at },
    { label: 'Response due', at: n.response_at },
  ];
  return times.flatMap(({ label, at }): NoticeTime[] => {
    if (at === null) return [];
    if (label === 'Ends' && isOpenEnded(n)) return [{ label, text: UNTIL_FURTHER_NOTICE }];
    return [{ label, at }];
  });
}

/**
 * The URL when it is an absolute http(s) URL of at most `maxLength` characters,
 * normalised (spaces, `<` and `"` arrive encoded) and without credentials; else
 * undefined. Links from upstream are shown only through this.
 */
export function webUrl(url: string, maxLength = 2048): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  parsed.username = '';
  parsed.password = '';
  return parsed.href.length <= maxLength ? parsed.href : undefined;
}

/** How a channel writes the words of a text change: escaped, and marked added or removed. */
export interface ChangeMarks {
  /** Upstream text made safe for the channel. */
  text(text: string): string;
  /** Words added, already made safe: `*words*`, `{+words+}`. */
  added(safe: string): string;
  /** Words removed, already made safe: `~words~`, `[-words-]`. */
  removed(safe: string): string;
  /**
   * Marks format only between words (Slack's): a changed run that touches a word
   * (`2026` then `-11-29`) is set apart by a space, or it would show unmarked.
   */
  apart?: boolean;
}

/** Words marked as `git diff --word-diff` does, for channels without formatting. */
export const PLAIN_MARKS: ChangeMarks = {
  text: (t) => t,
  added: (t) => `{+${t}+}`,
  removed: (t) => `[-${t}-]`,
};

/** Characters of a value or of the words of a change as a line shows it. */
const CHANGE_VALUE_MAX = 200;

/**
 * What changed in an updated notice, or since the notice it supersedes, one line each
 * as label and value, the value made safe by `marks`: `Status`, `Initiate → Revised`;
 * `Ends`, `Sun Nov 22, 9 AM → Mon Nov 23, 9 AM CST` (in `zone`); `Text`, the words
 * removed and added with a few around them. Empty when the alert carries none.
 */
export function changeLines(p: AlertPayload, marks: ChangeMarks): Array<[string, string]> {
  return (p.changes ?? []).map((c): [string, string] => {
    if (c.kind === 'value') {
      const v = (s: string) => marks.text(clip(oneLine(s), CHANGE_VALUE_MAX) || '(none)');
      return [c.label, `${v(c.before)} → ${v(c.after)}`];
    }
    if (c.kind === 'time') return [c.label, timeMove(c, p.zone)];
    if (c.parts.length === 0) return [c.label, 'rewritten, too different to show word by word'];
    return [c.label, wordLine(c.parts, marks) + (c.complete ? '' : ' …')];
  });
}

/** `Sun Nov 22, 9 AM → Mon Nov 23, 9 AM CST`: the year only when they differ, the zone once. */
function timeMove(c: Extract<NoticeChange, { kind: 'time' }>, zone: string): string {
  const parts = (iso: string | null) => {
    if (iso === null || Number.isNaN(Date.parse(iso))) return undefined;
    const got: Record<string, string> = {};
    for (const part of localFormat(zone).formatToParts(new Date(iso))) got[part.type] = part.value;
    return got;
  };
  const [was, now] = [parts(c.before), parts(c.after)];
  const years = was !== undefined && now !== undefined && was.year !== now.year;
  const show = (
    p: Record<string, string> | undefined,
    open: boolean | undefined,
    last: boolean,
  ) => {
    if (!p) return open ? UNTIL_FURTHER_NOTICE : 'none';
    const minutes = p.minute === '00' ? '' : `:${p.minute}`;
    const year = years ? `, ${p.year}` : '';
    const zoneName = last || was?.timeZoneName !== now?.timeZoneName ? ` ${p.timeZoneName}` : '';
    return `${p.weekday} ${p.month} ${p.day}${year}, ${p.hour}${minutes} ${p.dayPeriod}${zoneName}`;
  };
  return `${show(was, c.open_ended_before, !now)} → ${show(now, c.open_ended_after, true)}`;
}

/**
 * The words of a text change on one line: unchanged words as they are, changed ones
 * marked, the spacing of the text kept around them, and a space between words removed
 * and words added that touch.
 */
function wordLine(parts: readonly WordPart[], marks: ChangeMarks): string {
  let out = '';
  let previous: WordPart['op'] | undefined;
  for (const part of parts) {
    const core = clip(oneLine(part.text), CHANGE_VALUE_MAX);
    if (core === '') continue;
    const apart = marks.apart === true && part.op !== 'same';
    const lead = apart || /^\s/.test(part.text) ? ' ' : '';
    const trail = apart || /\s$/.test(part.text) ? ' ' : '';
    const touching = previous === 'removed' && part.op === 'added' && !lead && !/\s$/.test(out);
    const safe = marks.text(core);
    const shown = part.op === 'same' ? safe : marks[part.op](safe);
    out += `${touching ? ' ' : ''}${lead}${shown}${trail}`;
    previous = part.op;
  }
  return out.replace(/ {2,}/g, ' ').trim();
}

/**
 * Look-alikes of the characters Markdown dialects format with (`*`, `_`, `~`, backtick),
 * which no renderer formats: Slack's mrkdwn and Teams' card Markdown show upstream text
 * through them where the character could open or close formatting.
 */
export const FORMAT_LOOKALIKES: Readonly<Record<string, string>> = {
  '*': '\u2217',
  _: '\u02cd',
  '~': '\u223c',
  '`': '\u02cb',
};

/** A letter or digit: a formatting character between two of them formats nothing. */
export const WORD_CHARACTER = /[\p{L}\p{N}]/u;
