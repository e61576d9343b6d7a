/**
 * A Discord message as plain text, for reading in a terminal where Discord is not at
 * hand: the content line, then each embed's author, title, link, description and fields
 * as `name: value`, and footer. Markdown marks and escapes are taken off, timestamp
 * tokens written out (`<t:…:R>` relative to the send time). What upstream wrote stays as
 * Discord would show it; making it safe for a terminal is the caller's part.
 */
import { formatTimeLeft } from '../../lib/duration.js';
import type { Alert } from '../types.js';
import type { Embed } from './limits.js';
import { type DiscordMessage, renderMessage } from './render.js';

/** `2026-11-20 20:00 UTC`. */
function utc(unix: number): string {
  return `${new Date(unix * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function token(unix: number, style: string, now: number): string {
  if (style !== 'R') return utc(unix);
  const ms = unix * 1000 - now;
  return ms >= 0 ? `in ${formatTimeLeft(ms)}` : `${formatTimeLeft(-ms)} ago`;
}

/** Markdown outside code blocks as its text: marks off, escapes undone. */
function unmark(text: string): string {
  return text
    .replace(/\*\*([^*\n]+)\*\*/g, '$1')
    .replace(/\\([\\*_~`|[\]#>+\-.])/g, '$1')
    .replace(/^-# /gm, '');
}

/**
 * Discord markdown as the plain text a reader sees: timestamp tokens written out,
 * code blocks as their lines, marks and backslash escapes taken off outside them.
 */
export function markdownToPlain(markdown: string, now: number): string {
  const timed = markdown.replace(/<t:(-?\d+)(?::([tTdDfFR]))?>/g, (_m, unix: string, style) =>
    token(Number(unix), style ?? 'f', now),
  );
  return timed
    .split('```')
    .map((part, i) => (i % 2 === 1 ? part.replace(/^\n/, '').replace(/\n$/, '') : unmark(part)))
    .join('');
}

function embedText(e: Embed, now: number): string {
  const lines: string[] = [];
  if (e.author) lines.push(e.author.name);
  if (e.title) lines.push(markdownToPlain(e.title, now));
  if (e.url) lines.push(e.url);
  if (e.description) lines.push('', markdownToPlain(e.description, now));
  if (e.fields && e.fields.length > 0) {
    lines.push('');
    for (const f of e.fields) {
      const value = markdownToPlain(f.value, now).split('\n').join(' · ');
      lines.push(`${markdownToPlain(f.name, now)}: ${value}`);
    }
  }
  if (e.footer) lines.push('', e.footer.text);
  return lines.join('\n');
}

/** A rendered Discord message as plain text; `now` is when it is sent. */
export function discordMessageText(message: DiscordMessage, now: string): string {
  const at = Date.parse(now);
  const parts = message.embeds.map((e) => embedText(e, at));
  if (message.content) parts.unshift(markdownToPlain(message.content, at));
  return parts.join('\n\n');
}

/** How `alerts` look in Discord at `now`, as plain text. */
export function previewDiscord(alerts: readonly Alert[], now: string): string {
  return discordMessageText(renderMessage(alerts, now), now);
}
