/**
 * Upstream text made inert for Slack. `&`, `<` and `>` become entities in every text
 * object, so `<!channel>`, `<@U…>` and `<http://x|y>` arrive as text; in mrkdwn the
 * formatting characters that would format (`*bold*`, `_italic_`, `~strike~`, code,
 * a leading `>` quote) are swapped for look-alikes; bidirectional overrides and control
 * characters are dropped. Lengths are counted after escaping, as Slack counts them, and
 * clipping never cuts an entity, a link or a date token in half.
 */
import { clip, FORMAT_LOOKALIKES, localTime, oneLine, WORD_CHARACTER, webUrl } from '../text.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** C0 controls except tab and LF, DEL, and the bidi embeddings, overrides and isolates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g;

/** Text with `&`, `<`, `>` as entities and unsafe characters removed; newlines kept. */
export function escapeText(text: string): string {
  return text.replace(UNSAFE, '').replace(/[&<>]/g, (c) => ENTITIES[c]);
}

/**
 * Escaped text that mrkdwn shows as typed: a `*`, `_` or `~` next to a non-word character
 * (where it could open or close formatting) and every backtick become look-alikes, and a
 * `>` starting a line (a quote) becomes `›`.
 */
export function neutralise(escaped: string): string {
  return escaped
    .replace(/[*_~`]/g, (c, i: number, s: string) => {
      if (c === '`') return FORMAT_LOOKALIKES[c];
      const inWord = WORD_CHARACTER.test(s[i - 1] ?? ' ') && WORD_CHARACTER.test(s[i + 1] ?? ' ');
      return inWord ? c : FORMAT_LOOKALIKES[c];
    })
    .replace(/^([ \t]*)&gt;/gm, '$1\u203a');
}

/**
 * Already-escaped text clipped to `max` characters; a cut never leaves half an entity
 * (`&am…`), an unclosed link or date token (`<https://…|lab…`).
 */
export function clipEscaped(escaped: string, max: number): string {
  if (escaped.length <= max) return escaped;
  return clip(escaped, max)
    .replace(/&[a-z]{0,3}…$/, '…')
    .replace(/<[^<>]*…$/, '…');
}

/** Upstream text for a one-line `plain_text` (headers, button labels). */
export function plainLine(text: string, max: number): string {
  return clipEscaped(escapeText(oneLine(text)), max);
}

/** Upstream text for a multi-line `plain_text` (the notice body). */
export function plainBlock(text: string, max: number): string {
  return clipEscaped(escapeText(text), max);
}

/** Upstream text for one line of mrkdwn: escaped, neutralised, clipped. */
export function mdLine(text: string, max: number): string {
  return clipEscaped(neutralise(escapeText(oneLine(text))), max);
}

/**
 * The URL when it is an absolute `http(s)` URL Slack accepts (at most 3000 characters),
 * normalised, with `|`, quotes and spaces percent-encoded; otherwise `undefined`.
 * Credentials in the URL are dropped.
 */
/** An http(s) URL for a link or button, with Slack's link delimiters encoded. */
export function safeUrl(url: string): string | undefined {
  return webUrl(url, 3000)?.replace(/[|<>"' ]/g, (c) => encodeURIComponent(c));
}

/** A mrkdwn link; `label` must already be escaped and neutralised. */
export function mdLink(href: string, label: string): string {
  return `<${href.replace(/&/g, '&amp;')}|${label}>`;
}

/** `localTime` in `zone`, or in UTC when the zone is unknown. */
export function zonedTime(iso: string, zone: string): string {
  try {
    return localTime(iso, zone);
  } catch {
    return localTime(iso, 'UTC');
  }
}

/**
 * A Slack date token: each reader sees the instant in their own zone, and clients that
 * cannot render it show the pipeline's local time:
 * `<!date^1732111200^{date_short_pretty} {time}|Fri, Nov 20, 2026, 9:00 AM CST>`.
 */
export function slackDate(iso: string, zone: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return mdLine(iso, 60);
  const fallback = escapeText(zonedTime(iso, zone)).replace(/[|^]/g, ' ');
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} {time}|${fallback}>`;
}
