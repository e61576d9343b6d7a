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
  webUrl,
} from '../text.js';
import type { Alert } from '../types.js';
import {
  esc,
  type Field,
  fieldTable,
  h2,
  layout,
  type Section,
  sanitizeNoticeHtml,
} from './html.js';

export { sanitizeNoticeHtml } from './html.js';

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
  return webUrl(url);
}

function bodyHtml(n: NonNullable<AlertPayload['notice']>, bodyText: string): string {
  const clean = n.html.trim() === '' ? '' : sanitizeNoticeHtml(n.html);
  if (clean !== '' && clean.length <= BODY_MAX * 2) return clean;
  return `<div style="white-space:pre-wrap">${esc(bodyText)}</div>`;
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
