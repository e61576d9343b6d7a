/**
 * A notice's body as plain text, for whatever shows it or compares two versions of it:
 * the text the pipeline gave, or its HTML converted when that is empty. Tags never
 * survive: text typed as `<script>` stays visible as text only through the escaping of
 * whatever shows it.
 */
import { createRequire } from 'node:module';
import type * as HtmlToText from 'html-to-text';

/**
 * The HTML converter, loaded on the first notice that has only HTML: upstream sends the
 * text too, so most processes never need it.
 */
let convert: typeof HtmlToText.convert | undefined;
const requireConverter = createRequire(import.meta.url);

/** The notice's body as plain text: the `notice` field, or its HTML converted when that is empty. */
export function noticeText(n: { notice: string; html: string }): string {
  const text = n.notice.trim() !== '' ? n.notice : htmlToText(n.html);
  return text.replace(/\r\n?/g, '\n').trim();
}

/** HTML to readable text: links as `text [url]`, tables kept in rows, no images. */
export function htmlToText(html: string): string {
  if (html.trim() === '') return '';
  convert ??= (requireConverter('html-to-text') as typeof HtmlToText).convert;
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'table', format: 'dataTable' },
    ],
  });
}
