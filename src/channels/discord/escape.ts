/**
 * Upstream text made safe for Discord: markdown escaped outside URLs (so Discord still
 * links them), mentions broken with a zero-width space, bidirectional overrides and
 * control characters removed.
 */
import { BIDI } from '../../lib/terminal.js';
import { oneLine } from '../text.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
/** Left as they are, so Discord still links them; markup stops at these characters. */
const URLS = /https?:\/\/[^\s<>[\]|`*~\\]+/g;

/** Backslash-escapes Discord markdown outside URLs: emphasis, code, spoilers, links, lines. */
export function escapeMarkdown(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(URLS)) {
    out += escapePlain(text.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + escapePlain(text.slice(last));
}

function escapePlain(text: string): string {
  return text
    .replace(/[\\*_~`|[\]]/g, '\\$&')
    .replace(/^([ \t]*)([#>+-])/gm, '$1\\$2')
    .replace(/^([ \t]*\d+)\.(?=\s)/gm, '$1\\.');
}

/** `@everyone`, `@here`, `<@…>`, `<@&…>`, `<#…>`, `<t:…>`, `</…>` shown as text, not markup. */
export function neutraliseMentions(text: string): string {
  return text
    .replace(/@(everyone|here)/gi, '@\u200b$1')
    .replace(/<(?=[@#:/!]|a:|t:|id:)/gi, '<\u200b');
}

/** Text without bidirectional overrides and control characters, and no run of blank lines. */
export function cleanText(text: string): string {
  return text
    .replace(BIDI, '')
    .replace(CONTROLS, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Upstream text with line breaks, safe for descriptions and field values. */
export function block(text: string): string {
  return neutraliseMentions(escapeMarkdown(cleanText(text)));
}

/** Upstream text on one line, safe for titles, field names and values. */
export const inline = (text: string): string => block(oneLine(text));
/** For the footer and author name, which Discord shows without markdown. */
export const plain = (text: string): string => neutraliseMentions(oneLine(text.replace(BIDI, '')));

/**
 * One line of a code block (a table row, already on one line and aligned): spacing
 * kept, no backtick that could close the block, no mention, no bidirectional override.
 */
export const codeLine = (text: string): string =>
  neutraliseMentions(text.replace(BIDI, '')).replace(/`/g, '\u02cb');
