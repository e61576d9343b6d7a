/**
 * Email rendering, pure: alerts → one message. Capacity alerts of one pipeline, cycle,
 * gas day and state are merged first into one table. The subject is one line of at most
 * 200 characters; the plain-text part and the HTML part say the same; the HTML is a
 * small layout of tables and inline styles that mail clients show alike, with the
 * pipeline's own notice HTML passed through an allow-list sanitiser. A silence's summary
 * is a section of its own (`silence.ts`), in a digest too. The `Message-ID` is
 * a hash of the alert keys, so a resend is the same message. Each alert has a synthetic
 * thread root (one per notice, one per capacity rule and pipeline): a message names the
 * roots of all it carries in `References` and the first of them in `In-Reply-To`, so a
 * notice, its updates and its reminders thread together, digests included, without any
 * stored state.
 */
import { createHash } from 'node:crypto';
import type { AlertPayload } from '../../alerts/payload.js';
import { inTimeLeft } from '../../lib/duration.js';
import { escapeHtml as esc } from '../../lib/escape-html.js';
import { quantity } from '../../lib/quantity.js';
import { mergeCapacityPayloads } from '../capacity.js';
import { type ChartImage, chartsOf } from '../charts.js';
import { NEXT_CYCLE_LABEL, nextCycleLine, nextCycleText } from '../next-cycle.js';
import {
  type ChangeMarks,
  changeLines,
  clip,
  DEADLINE_LABELS,
  localTime,
  noticeText,
  noticeTimes,
  oneLine,
  operationFacts,
  PLAIN_MARKS,
  pipelineName,
  timeLeftMs,
  title,
  webUrl,
} from '../text.js';
import type { Alert } from '../types.js';
import {
  capacityTable,
  type Field,
  fieldTable,
  h2,
  layout,
  type Section,
  sanitizeNoticeHtml,
  withCharts,
} from './html.js';
import { silenceSection } from './silence.js';

export { sanitizeNoticeHtml } from './html.js';

/** Longest subject, in characters. */
export const SUBJECT_MAX = 200;
/** Most alerts in one digest message. */
export const EMAIL_MAX_DIGEST = 20;
/** Longest notice body in either part, in characters; longer ones are clipped as text. */
const BODY_MAX = 100_000;

/** A rendered message: what nodemailer needs besides the addresses and the date. */
export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
  /** `<hash@pipewatch.example.com>`: the same for the same alerts. */
  messageId: string;
  /** The thread root of the first alert. */
  inReplyTo?: string;
  /** The thread roots of every alert, in order, at most `MAX_REFERENCES`. */
  references?: string[];
  headers: Record<string, string>;
}

export interface RenderOptions {
  /** EMAIL_FROM, whose domain the ids are made in. */
  from: string;
  /** `sent_at`, shown in the footer. */
  now: string;
  /** The unsubscribe link, shown in the footer of both parts (see `unsubscribe.ts`). */
  unsubscribeUrl?: string | undefined;
  /** The OAC charts the message carries, each shown under its alert (`charts.ts`). */
  charts?: readonly ChartImage[] | undefined;
}

/** Most thread roots a message names, so a digest's headers stay short. */
export const MAX_REFERENCES = 20;

type Capacity = NonNullable<AlertPayload['capacity']>;

/** One message for `alerts` (one alert, or a digest of several). */
export function renderEmail(alerts: readonly Alert[], options: RenderOptions): EmailMessage {
  if (alerts.length === 0) throw new Error('renderEmail needs at least one alert');
  const host = `pipewatch.${senderDomain(options.from)}`;
  const original = alerts.map((a) => a.payload);
  const payloads = mergeCapacityPayloads(original);
  const subject = clip(
    payloads.length === 1 ? title(payloads[0], options.now) : digestSubject(payloads),
    SUBJECT_MAX,
  );
  const roots = [...new Set(original.map((p) => threadRoot(p, host)))].slice(0, MAX_REFERENCES);
  const rules = [...new Set(original.map((p) => p.rule))];
  const keys = alerts.map((a) => a.key).sort();
  const footer = `pipewatch · rule${rules.length === 1 ? '' : 's'} ${rules.join(', ')} · sent ${options.now}`;
  const charts = options.charts ?? [];
  const sections = payloads.map((p) => withCharts(section(p, options.now), chartsOf(charts, p)));
  return {
    subject,
    text: [
      ...(payloads.length > 1 ? [`${payloads.length} alerts`, ''] : []),
      sections.map((s) => s.text).join(`\n\n${'='.repeat(72)}\n\n`),
      '',
      '--',
      oneLine(footer),
      ...(options.unsubscribeUrl ? [`Unsubscribe: ${options.unsubscribeUrl}`] : []),
    ].join('\n'),
    html: layout(subject, sections, footer, options.unsubscribeUrl),
    messageId: `<${sha256(keys.join('\n')).slice(0, 32)}@${host}>`,
    ...(roots[0] ? { inReplyTo: roots[0], references: roots } : {}),
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

/**
 * The synthetic message every alert about one notice replies to; for capacity, one per
 * rule and pipeline, since the locations of one cycle's alert differ from the next's
 * (the breach at 17 locations, the recovery at 3 of them, a repeat: one conversation).
 */
export function threadRoot(p: AlertPayload, host: string): string {
  const slug = p.pipeline.slug.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  if (p.notice) return `<notice-${slug}-${p.notice.id}@${host}>`;
  const what = p.kind === 'capacity' ? 'capacity' : oneLine(p.kind).replace(/[^a-z0-9-]/g, '-');
  return `<${what}-${slug}-${sha256([p.rule, p.pipeline.slug].join('\n')).slice(0, 16)}@${host}>`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function section(p: AlertPayload, now: string): Section {
  const heading = title(p, now);
  if (p.kind === 'capacity' && p.capacity) return capacitySection(p, p.capacity, heading, now);
  if (p.kind === 'silence' && p.silence) return silenceSection(p, heading);
  const n = p.notice;
  const intro: string[] = [];
  if (p.kind === 'deadline' && p.deadline) intro.push(...reminderIntro(p, p.deadline, now));
  if (p.state === 'updated') intro.push('The pipeline updated this notice.');
  const fields: Field[] = [['Pipeline', pipelineName(p)]];
  if (n) {
    fields.push(['Type', n.type], ['Category', n.category], ['Status', n.status]);
    fields.push(['Notice', n.identifier]);
    for (const t of noticeTimes(n)) fields.push([t.label, 'at' in t ? when(t.at, p.zone) : t.text]);
    fields.push([NEXT_CYCLE_LABEL, nextCycleText(p, now) ?? '']);
  }
  if (!p.changes && p.changed?.length) fields.push(['Changed', p.changed.join(', ')]);
  for (const f of operationFacts(p))
    fields.push([f.label, 'at' in f ? when(f.at, p.zone) : f.text]);
  const shown = fields.filter(([, v]) => v.trim() !== '').map(([l, v]): Field => [l, oneLine(v)]);
  const link = n ? safeUrl(n.url) : undefined;
  const bodyText = n ? clip(noticeText(n), BODY_MAX) : '';
  const changes = changeSection(p);
  const text = [
    heading,
    '',
    ...intro,
    ...(intro.length ? [''] : []),
    ...alignFields(shown),
    ...changes.text,
    ...(link ? [`Link:         ${link}`] : []),
    ...(bodyText ? ['', bodyText] : []),
  ].join('\n');
  const html = [
    h2(heading),
    ...intro.map((line) => `<p style="margin:0 0 12px">${esc(line)}</p>`),
    fieldTable(shown),
    ...(changes.html ? [changes.html] : []),
    link
      ? `<p style="margin:0 0 12px"><a href="${esc(link)}" rel="noopener noreferrer" target="_blank" style="color:#0b5cad">View the notice on ${esc(pipelineName(p))}'s site</a></p>`
      : '',
    n
      ? `<div style="border-top:1px solid #dde1e6;padding-top:12px">${bodyHtml(n, bodyText)}</div>`
      : '',
  ].join('\n');
  return { text, html };
}

/** Words removed struck through on red, words added on green. */
const HTML_MARKS: ChangeMarks = {
  text: esc,
  added: (t) => `<ins style="background:#dafbe1;text-decoration:none">${t}</ins>`,
  removed: (t) => `<del style="background:#ffebe9">${t}</del>`,
};

/**
 * What changed, under `What changed:`, a line each (`Status: Initiate → Revised`, words
 * as `[-removed-] {+added+}` in text, struck and highlighted in HTML), after the notice it
 * supersedes and its link. Nothing when the alert carries no changes.
 */
function changeSection(p: AlertPayload): { text: string[]; html: string } {
  const plain = changeLines(p, PLAIN_MARKS).map(([l, v]): Field => [l, oneLine(v)]);
  const marked = changeLines(p, HTML_MARKS);
  const s = p.supersedes;
  const url = s ? safeUrl(s.url) : undefined;
  const name = s ? oneLine(`Notice ${s.identifier || `#${s.id}`}: ${clip(s.subject, 200)}`) : '';
  if (s) plain.unshift(['Supersedes', url ? `${name} (${url})` : name]);
  if (plain.length === 0) return { text: [], html: '' };
  const cell = 'padding:2px 12px 2px 0;color:#57606a;vertical-align:top;white-space:nowrap';
  const rows = marked.map(
    ([l, v]) => `<tr><td style="${cell}">${esc(l)}</td><td style="padding:2px 0">${v}</td></tr>`,
  );
  if (s) {
    const linked = url
      ? `<a href="${esc(url)}" rel="noopener noreferrer" target="_blank" style="color:#0b5cad">${esc(name)}</a>`
      : esc(name);
    rows.unshift(
      `<tr><td style="${cell}">Supersedes</td><td style="padding:2px 0">${linked}</td></tr>`,
    );
  }
  return {
    text: ['', 'What changed:', ...alignFields(plain)],
    html: `<p style="margin:0 0 4px;font-weight:600">What changed</p><table role="presentation" cellpadding="0" cellspacing="0" style="margin:0 0 12px;font-size:14px">${rows.join('')}</table>`,
  };
}

/**
 * What a reminder says first: how long is left at `now` and when exactly, which
 * reminder it is, and whether it is late.
 */
function reminderIntro(
  p: AlertPayload,
  d: NonNullable<AlertPayload['deadline']>,
  now: string,
): string[] {
  const label = DEADLINE_LABELS[d.field] ?? d.field;
  const left = timeLeftMs(p, now);
  const soon = left === undefined ? `in ${d.before}` : inTimeLeft(left);
  const lines = [
    `${label} ${soon}: ${when(d.at, p.zone)}.`,
    `This is the reminder ${d.before} before the deadline.`,
  ];
  if (d.late) lines.push('This reminder is late: it came due while it could not be sent.');
  return lines;
}

function capacitySection(p: AlertPayload, c: Capacity, heading: string, now: string): Section {
  const firing = p.state !== 'resolved';
  const count = `${c.locations.length} location${c.locations.length === 1 ? '' : 's'}`;
  const rules = `rule${p.rule.includes(', ') ? 's' : ''} ${p.rule}`;
  const summary = firing
    ? `OAC is below the threshold of ${rules} at ${count}.`
    : `OAC has recovered above the clear level of ${rules} at ${count}.`;
  const repeats = firing && c.locations.some((l) => l.repeat === true);
  const header = [
    ...'Location ID Flow DC OPC TSQ OAC'.split(' '),
    firing ? 'Threshold' : 'Clear above',
    ...(repeats ? ['Alert'] : []),
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
    ...(repeats ? [l.repeat ? 'repeat' : 'new'] : []),
  ]);
  const meta = `Pipeline: ${pipelineName(p)} · Cycle: ${c.cycle} · Gas day: ${c.gas_day}`;
  const next = nextCycleLine(p, now);
  const text = [
    heading,
    '',
    summary,
    oneLine(meta),
    ...(next ? [next] : []),
    '',
    ...alignTable([header, ...rows], 3),
  ].join('\n');
  const color = firing ? '#b42318' : '#067647';
  const html = [
    h2(heading),
    `<p style="margin:0 0 8px;color:${color};font-weight:bold">${esc(summary)}</p>`,
    `<p style="margin:0 0 12px;color:#57606a">${esc(meta)}${next ? `<br>${esc(next)}` : ''}</p>`,
    // On a phone: location, OAC with its share of OPC, the level and whether it is new.
    capacityTable(
      header,
      rows,
      (i) => i >= 3 && i < 8,
      (i) => i >= 1 && i < 6,
    ),
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
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  const pad = (v: string, i: number) => {
    const fill = ' '.repeat(widths[i] - [...v].length);
    return i >= firstNumeric ? fill + v : v + fill;
  };
  return rows.map((r) => r.map(pad).join('  ').trimEnd());
}
