/**
 * The HTML of alert email: the pipeline's notice HTML through an allow-list sanitiser,
 * and a small layout of tables and inline styles that mail clients show alike.
 */
import sanitizeHtml from 'sanitize-html';
import { escapeHtml } from '../../lib/escape-html.js';

/** A label and its value. */
export type Field = [label: string, value: string];

/** One alert's part of a message, in both forms. */
export interface Section {
  text: string;
  html: string;
}

const CELL_STYLE = 'border:1px solid #dde1e6;padding:4px 8px';
const NEW_WINDOW = { rel: 'noopener noreferrer', target: '_blank' };
/** Sets a tag's `style`, replacing whatever the pipeline wrote. */
const styled = (style: string) => (tagName: string, attribs: sanitizeHtml.Attributes) => ({
  tagName,
  attribs: { ...attribs, style },
});
const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'p br div span b strong i em u s strike sub sup small h1 h2 h3 h4 h5 h6 hr pre code',
    'ul ol li dl dt dd blockquote a table caption colgroup col thead tbody tfoot tr th td',
  ]
    .join(' ')
    .split(' '),
  allowedAttributes: {
    a: ['href', 'title', 'rel', 'target'],
    table: ['style', 'cellpadding', 'cellspacing'],
    th: ['style', 'colspan', 'rowspan', 'align', 'valign', 'scope'],
    td: ['style', 'colspan', 'rowspan', 'align', 'valign'],
    col: ['span'],
    ol: ['start', 'type'],
  },
  // Every `style` that survives is one set below: the pipeline's own styles never do.
  allowedStyles: {
    '*': {
      border: [/^1px solid #[0-9a-f]{6}$/],
      'border-collapse': [/^collapse$/],
      padding: [/^\d+px( \d+px)?$/],
    },
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, ...NEW_WINDOW } }),
    table: styled('border-collapse:collapse'),
    th: styled(CELL_STYLE),
    td: styled(CELL_STYLE),
  },
};

/** The pipeline's HTML through the allow-list: no scripts, handlers, styles, images or frames. */
export function sanitizeNoticeHtml(html: string): string {
  return sanitizeHtml(html, SANITIZE).trim();
}

export function h2(text: string): string {
  return `<h2 style="margin:0 0 12px;font-size:18px;line-height:1.3;color:#1f2328">${escapeHtml(text)}</h2>`;
}

export function fieldTable(fields: Field[]): string {
  const rows = fields.map(
    ([l, v]) =>
      `<tr><td style="padding:2px 12px 2px 0;color:#57606a;vertical-align:top;white-space:nowrap">${escapeHtml(l)}</td><td style="padding:2px 0">${escapeHtml(v)}</td></tr>`,
  );
  return `<table role="presentation" cellpadding="0" cellspacing="0" style="margin:0 0 12px;font-size:14px">${rows.join('')}</table>`;
}

/**
 * The class of the capacity table's secondary columns (ID, flow, DC, OPC, TSQ), which a
 * phone leaves out: the table of every column is some 530 px wide.
 */
export const WIDE_ONLY = 'pw-wide';

/**
 * The one stylesheet, in the head where mail clients that take one look for it. It only
 * adds to a layout that stands without it: on a screen narrower than 600 px the capacity
 * table loses its secondary columns, and no image is wider than its column. A client
 * that drops it (Outlook on the desktop ignores media queries) shows every column, the
 * table scrolling sideways in its own box (`capacityTable`) rather than widening the page.
 */
const STYLE = `<style>@media screen and (max-width:600px){.${WIDE_ONLY}{display:none!important}}img{max-width:100%;height:auto}</style>`;

/**
 * The capacity table: `header` and `rows` of cells as text, columns `right` aligned to
 * the right, columns `wide` left out on a phone. Attributes rather than a style on every
 * cell: a table of hundreds of locations stays small enough that mail clients show it
 * whole instead of clipping the message. It sits in a box of its own that scrolls
 * sideways where the stylesheet is ignored on a narrow screen; words break only where a
 * long one is cut up (`breakable`), so a number is never split across lines.
 */
export function capacityTable(
  header: string[],
  rows: string[][],
  right: (column: number) => boolean,
  wide: (column: number) => boolean,
): string {
  const attrs = (i: number) =>
    `${right(i) ? ' align="right"' : ''}${wide(i) ? ` class="${WIDE_ONLY}"` : ''}`;
  const th = header
    .map(
      (v, i) =>
        `<th align="${right(i) ? 'right' : 'left'}"${wide(i) ? ` class="${WIDE_ONLY}"` : ''}>${escapeHtml(v)}</th>`,
    )
    .join('');
  const td = (r: string[]) =>
    `<tr>${r.map((v, i) => `<td${attrs(i)}>${breakable(v)}</td>`).join('')}</tr>`;
  return [
    '<div style="overflow-x:auto">',
    `<table border="1" cellpadding="4" cellspacing="0" style="border-collapse:collapse;border-color:#dde1e6;font-size:13px;overflow-wrap:normal;word-break:normal">`,
    `<tr style="background:#f4f5f7">${th}</tr>`,
    ...rows.map(td),
    '</table></div>',
  ].join('\n');
}

/** Runs of this many characters without a space are cut up by `breakable`. */
const LONG_RUN = 16;
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * Text as HTML with a place to break (`<wbr>`) every 8 characters of a run of 16 or more
 * without a space, so a location name of 120 characters wraps in its column instead of
 * widening the table. Shorter words, numbers among them, are left whole.
 */
export function breakable(text: string): string {
  return text
    .split(new RegExp(`(\\S{${LONG_RUN},})`, 'u'))
    .map((part, i) => {
      if (i % 2 === 0) return escapeHtml(part);
      const chars = [...GRAPHEMES.segment(part)].map((g) => g.segment);
      const pieces: string[] = [];
      for (let at = 0; at < chars.length; at += LONG_RUN / 2)
        pieces.push(escapeHtml(chars.slice(at, at + LONG_RUN / 2).join('')));
      return pieces.join('<wbr>');
    })
    .join('');
}

/**
 * The whole HTML part: the sections, one under another, and the footer with its links.
 * The column is 680 px at most and the screen's width on a phone, and nothing in it
 * widens it (a fixed table layout): a word longer than a line (a location name of 120
 * characters) breaks, and the capacity table scrolls in its own box where it must.
 */
export function layout(
  subject: string,
  sections: Section[],
  footer: string,
  unsubscribeUrl?: string,
): string {
  const count = sections.length;
  const intro =
    count > 1
      ? `<tr><td style="${PAD};color:#57606a;font-size:13px">${count} alerts</td></tr>`
      : '';
  const rule = (i: number) => (i > 0 ? ';border-top:2px solid #dde1e6' : '');
  const body = sections.map((s, i) => `<tr><td style="${PAD}${rule(i)}">${s.html}</td></tr>`);
  const unsubscribe = unsubscribeUrl
    ? ` · <a href="${escapeHtml(unsubscribeUrl)}" rel="noopener noreferrer" target="_blank" style="color:#57606a;text-decoration:underline">Unsubscribe</a>`
    : '';
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(subject)}</title>${STYLE}</head>
<body style="margin:0;padding:0;background:#f4f5f7">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7"><tr><td align="center" style="padding:16px 8px">
<table role="presentation" width="680" cellpadding="0" cellspacing="0" style="width:100%;max-width:680px;table-layout:fixed;background:#ffffff;border:1px solid #dde1e6;font-family:Arial,Helvetica,sans-serif;font-size:14px;line-height:1.45;color:#1f2328;text-align:left;overflow-wrap:anywhere;word-break:break-word">
${intro}
${body.join('\n')}
<tr><td style="padding:12px 24px;border-top:1px solid #dde1e6;color:#57606a;font-size:12px">${escapeHtml(footer)}${unsubscribe}</td></tr>
</table></td></tr></table></body></html>`;
}

const PAD = 'padding:16px 24px';

/** The Content-ID an email gives a chart it carries, to show it inline (`cid:`). */
export function chartCid(name: string): string {
  return `${name}@pipewatch`;
}

/**
 * A section with its OAC charts under it: inline images the message carries as
 * attachments, as wide as the message on a phone, each with its figures as alt text and
 * in the plain-text part.
 */
export function withCharts(
  s: Section,
  charts: ReadonlyArray<{ name: string; alt: string }>,
): Section {
  if (charts.length === 0) return s;
  const images = charts.map(
    (c) =>
      `<p style="margin:12px 0 0"><img src="cid:${escapeHtml(chartCid(c.name))}" alt="${escapeHtml(c.alt)}" width="600" style="display:block;width:100%;max-width:600px;height:auto;border:0"></p>`,
  );
  return {
    text: [s.text, '', ...charts.map((c) => `Chart: ${c.alt}`)].join('\n'),
    html: [s.html, ...images].join('\n'),
  };
}
