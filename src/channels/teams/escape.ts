/**
 * Upstream text made inert for an Adaptive Card in Teams. A `TextBlock`'s text and a
 * `FactSet`'s values are Markdown there (bold, italic, links, lists), and Teams reads
 * `<at>…</at>` as a mention and leaves HTML to its renderer; so what the pipelines wrote
 * must neither format, link, mention nor list. The formatting characters become
 * look-alikes (`*` `∗`, `` ` `` `ˋ`, `~` `∼`, and `_` where it could open or close
 * emphasis), a link's `](` and a link definition's `]:` are parted by a zero-width space,
 * as are `<` from what follows it (no tag, mention or autolink) and `&` from an entity,
 * and a line that would start a list, heading or quote starts with a zero-width space.
 * Control characters and bidirectional overrides are dropped. A bare URL stays as it
 * is: Teams links it, showing where it goes.
 */
import { BIDI } from '../../lib/terminal.js';
import { clip, FORMAT_LOOKALIKES, oneLine, WORD_CHARACTER, webUrl } from '../text.js';

/** The zero-width space that parts what would otherwise be markup. */
const ZWSP = '\u200b';

/** C0 controls but tab and LF, DEL and the C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text without control characters, bidirectional overrides, or runs of blank lines. */
export function cleanText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(BIDI, '')
    .replace(CONTROLS, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Clean text that Adaptive Card Markdown shows as typed (see the head of this file). */
export function neutralise(text: string): string {
  return text
    .replace(/[*_~`]/g, (c, i: number, s: string) => {
      const inWord =
        c === '_' && WORD_CHARACTER.test(s[i - 1] ?? ' ') && WORD_CHARACTER.test(s[i + 1] ?? ' ');
      return inWord ? c : (FORMAT_LOOKALIKES[c] ?? c);
    })
    .replace(/\](?=[([:])/g, `]${ZWSP}`)
    .replace(/</g, `<${ZWSP}`)
    .replace(/&(?=#?[a-z0-9]+;)/gi, `&${ZWSP}`)
    .replace(/^([ \t]*)(?=[-+#>=|]|\d+[.)])/gm, `$1${ZWSP}`);
}

/** Upstream text on one line, safe, at most `max` characters. */
export function inline(text: string, max: number): string {
  return clip(neutralise(cleanText(oneLine(text))), max);
}

/** Upstream text with its line breaks, safe; clipped by the caller, to fit the card. */
export function block(text: string): string {
  return neutralise(cleanText(text));
}

/**
 * The URL when it is an absolute http(s) URL (at most 2048 characters), normalised, with
 * what could end a Markdown link or its label percent-encoded; otherwise undefined.
 */
export function safeUrl(url: string): string | undefined {
  return webUrl(url, 2048)?.replace(
    /[()[\]<>"' `]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/** A Markdown link; `label` must already be safe. */
export function mdLink(href: string, label: string): string {
  return `[${label.replace(/[[\]]/g, (c) => (c === '[' ? '(' : ')'))}](${href})`;
}
