/**
 * Text every channel shares: a notice's body as plain text, clipping without breaking a
 * character, one-line text for titles and subjects, times in the pipeline's zone, and
 * the headline of an alert. Escaping for a platform's markup belongs to its channel.
 */
import { convert } from 'html-to-text';
import type { AlertPayload } from '../alerts/payload.js';
import type { Notice } from '../upstream/schemas.js';

const ELLIPSIS = '…';

/**
 * The notice's body as plain text: the `notice` field, or its HTML converted when that
 * is empty. Tags never survive: text the pipeline typed as `<script>` stays visible as
 * text only through the platform's own escaping.
 */
export function noticeText(n: Pick<Notice, 'notice' | 'html'>): string {
  const text = n.notice.trim() !== '' ? n.notice : htmlToText(n.html);
  return text.replace(/\r\n?/g, '\n').trim();
}

/** HTML to readable text: links as `text [url]`, tables kept in rows, no images. */
export function htmlToText(html: string): string {
  if (html.trim() === '') return '';
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'table', format: 'dataTable' },
    ],
  });
}

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
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]+/g;

/** One line: control characters (CR and LF included) become spaces, runs of space one. */
export function oneLine(text: string): string {
  return text.replace(CONTROL, ' ').replace(/ {2,}/g, ' ').trim();
}

/** `Fri, Nov 20, 2026, 9:00 AM CST`: a UTC instant shown in a zone. */
export function localTime(iso: string, zone: string): string {
  let format = FORMATS.get(zone);
  if (!format) {
    format = localFormat(zone);
    FORMATS.set(zone, format);
  }
  return format.format(new Date(iso));
}

/** One formatter per zone: building one costs far more than using it. */
const FORMATS = new Map<string, Intl.DateTimeFormat>();

function localFormat(zone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  });
}

/** `1,234,567`; `-` when unknown. */
export function quantity(value: number | null): string {
  return value === null ? '-' : value.toLocaleString('en-US');
}

/** The pipeline's display name. */
export function pipelineName(p: AlertPayload): string {
  return p.pipeline.name || p.pipeline.slug;
}

/**
 * The alert in one line, without the pipeline: the notice's type and subject, the
 * reminder, or the capacity state. Upstream text, not escaped.
 *  - `Capacity Constraint: Station 165 limited`
 *  - `Updated Capacity Constraint: Station 165 limited`
 *  - `Response due in 2h: OFO for Nov 21`
 *  - `Low OAC at STATION 85 (+2 more), timely cycle, gas day 2026-11-21`
 *  - `The API's catalog for notices changed: …` (operations)
 */
export function headline(p: AlertPayload): string {
  if (p.kind === 'operations' && p.operations) return oneLine(p.operations.summary);
  if (p.kind === 'capacity' && p.capacity) {
    const [first, ...rest] = p.capacity.locations;
    const where = first
      ? `${first.location}${rest.length > 0 ? ` (+${rest.length} more)` : ''}`
      : '';
    const what = p.state === 'resolved' ? 'OAC recovered' : 'Low OAC';
    return oneLine(`${what} at ${where}, ${p.capacity.cycle} cycle, gas day ${p.capacity.gas_day}`);
  }
  const n = p.notice;
  if (!n) return `${p.kind} ${p.state}`;
  if (p.kind === 'deadline' && p.deadline) {
    const field = DEADLINE_LABELS[p.deadline.field] ?? p.deadline.field;
    const late = p.deadline.late ? ' (late)' : '';
    return oneLine(`${field} in ${p.deadline.before}${late}: ${n.subject}`);
  }
  const type = n.type || 'Notice';
  return oneLine(`${p.state === 'updated' ? 'Updated ' : ''}${type}: ${n.subject}`);
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

/** `[Transco] Capacity Constraint: Station 165 limited`: an email subject, a title. */
export function title(p: AlertPayload): string {
  return oneLine(`[${shortPipelineName(p)}] ${headline(p)}`);
}

/** The notice fields a reader looks for, in order, with their UTC instants. */
export function noticeTimes(n: Notice): Array<{ label: string; at: string }> {
  const times: Array<{ label: string; at: string | null }> = [
    { label: 'Posted', at: n.posted_at },
    { label: 'Effective', at: n.effective_at },
    { label: 'Ends', at: n.end_at },
    { label: 'Response due', at: n.response_at },
  ];
  return times.filter((t): t is { label: string; at: string } => t.at !== null);
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
