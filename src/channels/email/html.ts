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

/** The whole HTML part: the sections, one under another, and the footer with its links. */
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
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7"><tr><td align="center" style="padding:16px 8px">
<table role="presentation" width="680" cellpadding="0" cellspacing="0" style="width:100%;max-width:680px;background:#ffffff;border:1px solid #dde1e6;font-family:Arial,Helvetica,sans-serif;font-size:14px;line-height:1.45;color:#1f2328;text-align:left">
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
