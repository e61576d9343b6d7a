/**
 * Email rendering, pure: alerts → one message. The subject is one line of at most 200
 * characters; the plain-text part and the HTML part say the same; the HTML is a small
 * layout of tables and inline styles that mail clients show alike, with the pipeline's
 * own notice HTML passed through an allow-list sanitiser. The `Message-ID` is a hash of
 * the alert keys, so a resend is the same message; `In-Reply-To` and `References` name a
 * synthetic root per notice (or per capacity rule and locations), so the first alert,
 * its updates and its reminders thread together without any stored state.
 */
import { createHash } from 'node:crypto';
import sanitizeHtml from 'sanitize-html';
import type { AlertPayload } from '../../alerts/payload.js';
import {
  clip,
  DEADLINE_LABELS,
  localTime,
  noticeText,
  noticeTimes,
  oneLine,
  pipelineName,
  quantity,
  title,
} from '../text.js';
import type { Alert } from '../types.js';

/** Longest subject, in characters. */
export const SUBJECT_MAX = 200;
/** Longest notice body in either part, in characters; longer ones are clipped as text. */
const BODY_MAX = 100_000;

/** A rendered message: what nodemailer needs besides the addresses and the date. */
export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
  /** `<hash@pipewatch.example.com>`: the same for the same alerts. */
  messageId: string;
  /** The thread root, when every alert is about the same notice or capacity breach. */
  inReplyTo?: string;
  references?: string[];
  headers: Record<string, string>;
}

export interface RenderOptions {
  /** EMAIL_FROM, whose domain the ids are made in. */
  from: string;
  /** `sent_at`, shown in the footer. */
  now: string;
}

type Capacity = NonNullable<AlertPayload['capacity']>;
type Field = [label: string, value: string];

/** One message for `alerts` (one alert, or a digest of several). */
export function renderEmail(alerts: readonly Alert[], options: RenderOptions): EmailMessage {
  if (alerts.length === 0) throw new Error('renderEmail needs at least one alert');
  const host = `pipewatch.${senderDomain(options.from)}`;
  const payloads = alerts.map((a) => a.payload);
  const subject = clip(
    payloads.length === 1 ? title(payloads[0]!) : digestSubject(payloads),
    SUBJECT_MAX,
  );
  const roots = [...new Set(payloads.map((p) => threadRoot(p, host)))];
  const root = roots.length === 1 ? roots[0] : undefined;
  const rules = [...new Set(payloads.map((p) => p.rule))];
  const keys = alerts.map((a) => a.key).sort();
  const footer = `pipewatch · rule ${rules.join(', ')} · sent ${options.now}`;
  const sections = payloads.map(section);
  return {
    subject,
    text: [
      ...(payloads.length > 1 ? [`${payloads.length} alerts`, ''] : []),
      sections.map((s) => s.text).join(`\n\n${'='.repeat(72)}\n\n`),
      '',
      '--',
      oneLine(footer),
    ].join('\n'),
    html: layout(subject, sections, footer),
    messageId: `<${sha256(keys.join('\n')).slice(0, 32)}@${host}>`,
    ...(root ? { inReplyTo: root, references: [root] } : {}),
    headers: {
      'Auto-Submitted': 'auto-generated',
      'X-Auto-Response-Suppress': 'All',
      'X-Pipewatch-Rule': clip(oneLine(rules.join(', ')), SUBJECT_MAX),
      'X-Pipewatch-Kind': [...new Set(payloads.map((p) => `${p.kind}/${p.state}`))].join(', '),
    },
  };
}

/** `[pipewatch] 5 alerts: Transco, Texas Eastern`. */
function digestSubject(payloads: AlertPayload[]): string {
  const names = [...new Set(payloads.map(pipelineName))];
  return oneLine(`[pipewatch] ${payloads.length} alerts: ${names.join(', ')}`);
}

/** The domain of EMAIL_FROM (`pipewatch <alerts@example.com>` → `example.com`). */
export function senderDomain(from: string): string {
  const address = /<([^<>]*)>\s*$/.exec(from)?.[1] ?? from;
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  return domain.replace(/[^a-z0-9.-]/g, '').replace(/^[.-]+|[.-]+$/g, '') || 'localhost';
}

/** The synthetic message every alert about one notice (or one capacity breach) replies to. */
export function threadRoot(p: AlertPayload, host: string): string {
  const slug = p.pipeline.slug.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  if (p.notice) return `<notice-${slug}-${p.notice.id}@${host}>`;
  const where = (p.capacity?.locations ?? []).map((l) => l.identifier || l.location).sort();
  return `<capacity-${slug}-${sha256([p.rule, ...where].join('\n')).slice(0, 16)}@${host}>`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

interface Section {
  text: string;
  html: string;
}

function section(p: AlertPayload): Section {
  const heading = title(p);
  if (p.kind === 'capacity' && p.capacity) return capacitySection(p, p.capacity, heading);
  const n = p.notice;
  const intro: string[] = [];
  if (p.kind === 'deadline' && p.deadline) {
    const d = p.deadline;
    const label = DEADLINE_LABELS[d.field] ?? d.field;
    intro.push(`Reminder, ${d.before} before the deadline. ${label}: ${when(d.at, p.zone)}.`);
    if (d.late)
      intro.push(`This reminder is late: less than ${d.before} remained when it was sent.`);
  }
  if (p.state === 'updated') intro.push('The pipeline updated this notice.');
  const fields: Field[] = [['Pipeline', pipelineName(p)]];
  if (n) {
    fields.push(['Type', n.type], ['Category', n.category], ['Status', n.status]);
    fields.push(['Notice', n.identifier]);
    for (const t of noticeTimes(n)) fields.push([t.label, when(t.at, p.zone)]);
  }
  if (p.changed?.length) fields.push(['Changed', p.changed.join(', ')]);
  const shown = fields.filter(([, v]) => v.trim() !== '').map(([l, v]): Field => [l, oneLine(v)]);
  const link = n ? safeUrl(n.url) : undefined;
  const bodyText = n ? clip(noticeText(n), BODY_MAX) : '';
  const text = [
    heading,
    '',
    ...intro,
    ...(intro.length ? [''] : []),
    ...alignFields(shown),
    ...(link ? [`Link:         ${link}`] : []),
    ...(bodyText ? ['', bodyText] : []),
  ].join('\n');
  const html = [
    h2(heading),
    ...intro.map((line) => `<p style="margin:0 0 12px">${esc(line)}</p>`),
    fieldTable(shown),
    link
      ? `<p style="margin:0 0 12px"><a href="${esc(link)}" rel="noopener noreferrer" target="_blank" style="color:#0b5cad">View the notice on ${esc(pipelineName(p))}'s site</a></p>`
      : '',
    n
      ? `<div style="border-top:1px solid #dde1e6;padding-top:12px">${bodyHtml(n, bodyText)}</div>`
      : '',
  ].join('\n');
  return { text, html };
}

function capacitySection(p: AlertPayload, c: Capacity, heading: string): Section {
  const firing = p.state !== 'resolved';
  const count = `${c.locations.length} location${c.locations.length === 1 ? '' : 's'}`;
  const summary = firing
    ? `OAC is below the threshold of rule ${p.rule} at ${count}.`
    : `OAC has recovered above the clear level of rule ${p.rule} at ${count}.`;
  const header = [
    ...'Location ID Flow DC OPC TSQ OAC'.split(' '),
    firing ? 'Threshold' : 'Clear above',
  ];
  const rows = c.locations.map((l) => [
    oneLine(l.location),
    oneLine(l.identifier),
    oneLine(l.flow),
    quantity(l.dc),
    quantity(l.opc),
    quantity(l.tsq),
    l.oac !== null && l.opc
      ? `${quantity(l.oac)} (${((l.oac / l.opc) * 100).toFixed(1)}%)`
      : quantity(l.oac),
    level(firing ? l.threshold : l.clear_above, l.unit, l.opc),
  ]);
  const meta = `Pipeline: ${pipelineName(p)} · Cycle: ${c.cycle} · Gas day: ${c.gas_day}`;
  const text = [heading, '', summary, oneLine(meta), '', ...alignTable([header, ...rows], 3)].join(
    '\n',
  );
  const cell = 'padding:4px 8px;border:1px solid #dde1e6;';
  const tr = (cells: string[], tag: 'th' | 'td') =>
    `<tr>${cells.map((v, i) => `<${tag} style="${cell}text-align:${i >= 3 ? 'right' : 'left'}${tag === 'th' ? ';background:#f4f5f7' : ''}">${esc(v)}</${tag}>`).join('')}</tr>`;
  const color = firing ? '#b42318' : '#067647';
  const html = [
    h2(heading),
    `<p style="margin:0 0 8px;color:${color};font-weight:bold">${esc(summary)}</p>`,
    `<p style="margin:0 0 12px;color:#57606a">${esc(meta)}</p>`,
    `<table role="presentation" cellpadding="0" cellspacing="0" style="border-collapse:collapse;font-size:13px">`,
    tr(header, 'th'),
    ...rows.map((r) => tr(r, 'td')),
    '</table>',
  ].join('\n');
  return { text, html };
}

/** `50,000 Dth`, or `10% of OPC (80,000 Dth)` for a percentage. */
function level(value: number, unit: 'absolute' | 'percent', opc: number | null): string {
  if (unit === 'absolute') return `${quantity(value)} Dth`;
  const dth = opc === null ? '' : ` (${quantity(Math.round((opc * value) / 100))} Dth)`;
  return `${value}% of OPC${dth}`;
}

/** `Fri, Nov 20, 2026, 9:00 AM EST (2026-11-20 14:00 UTC)`. */
function when(iso: string, zone: string): string {
  const utc = `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  try {
    return `${localTime(iso, zone)} (${utc})`;
  } catch {
    return utc;
  }
}

/** The URL when it is http(s), normalised (so `<`, `"` and spaces arrive encoded). */
export function safeUrl(url: string): string | undefined {
  try {
    const u = new URL(url.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
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

function bodyHtml(n: NonNullable<AlertPayload['notice']>, bodyText: string): string {
  const clean = n.html.trim() === '' ? '' : sanitizeNoticeHtml(n.html);
  if (clean !== '' && clean.length <= BODY_MAX * 2) return clean;
  return `<div style="white-space:pre-wrap">${esc(bodyText)}</div>`;
}

function h2(text: string): string {
  return `<h2 style="margin:0 0 12px;font-size:18px;line-height:1.3;color:#1f2328">${esc(text)}</h2>`;
}

function fieldTable(fields: Field[]): string {
  const rows = fields.map(
    ([l, v]) =>
      `<tr><td style="padding:2px 12px 2px 0;color:#57606a;vertical-align:top;white-space:nowrap">${esc(l)}</td><td style="padding:2px 0">${esc(v)}</td></tr>`,
  );
  return `<table role="presentation" cellpadding="0" cellspacing="0" style="margin:0 0 12px;font-size:14px">${rows.join('')}</table>`;
}

function alignFields(fields: Field[]): string[] {
  return fields.map(([l, v]) => `${`${l}:`.padEnd(14)}${v}`);
}

/** Rows of text in aligned columns; columns from `firstNumeric` on are right-aligned. */
function alignTable(rows: string[][], firstNumeric: number): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  const pad = (v: string, i: number) => {
    const fill = ' '.repeat(widths[i]! - [...v].length);
    return i >= firstNumeric ? fill + v : v + fill;
  };
  return rows.map((r) => r.map(pad).join('  ').trimEnd());
}

function layout(subject: string, sections: Section[], footer: string): string {
  const count = sections.length;
  const intro =
    count > 1
      ? `<tr><td style="${PAD};color:#57606a;font-size:13px">${count} alerts</td></tr>`
      : '';
  const rule = (i: number) => (i > 0 ? ';border-top:2px solid #dde1e6' : '');
  const body = sections.map((s, i) => `<tr><td style="${PAD}${rule(i)}">${s.html}</td></tr>`);
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7"><tr><td align="center" style="padding:16px 8px">
<table role="presentation" width="680" cellpadding="0" cellspacing="0" style="width:100%;max-width:680px;background:#ffffff;border:1px solid #dde1e6;font-family:Arial,Helvetica,sans-serif;font-size:14px;line-height:1.45;color:#1f2328;text-align:left">
${intro}
${body.join('\n')}
<tr><td style="padding:12px 24px;border-top:1px solid #dde1e6;color:#57606a;font-size:12px">${esc(footer)}</td></tr>
</table></td></tr></table></body></html>`;
}

const PAD = 'padding:16px 24px';
// biome-ignore format: a table reads best on one line
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content or a quoted attribute. */
function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}
