/**
 * Discord messages for alerts: one embed per alert (a notice, a deadline reminder or a
 * capacity alert), coloured by category or state, with times as Discord timestamp
 * tokens plus the pipeline's local time. Upstream text is escaped for Discord markdown
 * and its mentions are broken; `allowed_mentions` pings nobody anyway. Every embed and
 * the message as a whole stay within Discord's limits, shrinking text when needed.
 */
import { createHash } from 'node:crypto';
import type { AlertPayload } from '../../alerts/payload.js';
import type { UtcIso } from '../../upstream/schemas.js';
import {
  clip,
  headline,
  localTime,
  noticeText,
  noticeTimes,
  pipelineName,
  quantity,
  webUrl,
} from '../text.js';
import type { Alert } from '../types.js';
import { block, inline, plain } from './escape.js';
import { type Embed, type EmbedField, fitEmbeds, LIMITS } from './limits.js';

export { escapeMarkdown, neutraliseMentions } from './escape.js';
export { type Embed, type EmbedField, embedLength, fitEmbeds, LIMITS } from './limits.js';

/** The JSON body of `POST /channels/{id}/messages`, before the nonce and reply. */
export type DiscordMessage = { content?: string; embeds: Embed[]; allowed_mentions: { parse: [] } };

export const COLOURS = {
  critical: 0xd32f2f,
  nonCritical: 0xf9a825,
  other: 0x1e88e5,
  lowCapacity: 0xef6c00,
  resolved: 0x2e7d32,
  superseded: 0x9e9e9e,
} as const;

const SUPERSEDED = 'Superseded by a later version';
function field(name: string, value: string, inline = true): EmbedField {
  return {
    name: clip(name, LIMITS.fieldName) || '-',
    value: clip(value, LIMITS.fieldValue) || '-',
    inline,
  };
}

/** `<t:1732111200:f>` and, on a second line, the time where the pipeline is. */
function when(iso: string, zone: string, relative = false): string {
  const unix = Math.floor(Date.parse(iso) / 1000);
  return `<t:${unix}:f>${relative ? ` (<t:${unix}:R>)` : ''}\n${localTime(iso, zone)}`;
}

/** The URL if it is an absolute http(s) URL Discord accepts. */
export function safeUrl(url: string): string | undefined {
  return webUrl(url, 2048);
}

/** Red for Critical, amber for Non-Critical and the like, blue for anything else. */
export function categoryColour(category: string): number {
  const c = category.toLowerCase();
  if (/(^|[^a-z0-9-])critical([^a-z0-9-]|$)/.test(c)) return COLOURS.critical;
  return c.includes('critical') ? COLOURS.nonCritical : COLOURS.other;
}

function base(p: AlertPayload, now: UtcIso, footer: string): Embed {
  return {
    author: { name: clip(plain(pipelineName(p)), LIMITS.author) },
    title: clip(inline(headline(p)), LIMITS.title),
    timestamp: new Date(now).toISOString(),
    footer: { text: clip(plain(`pipewatch · rule ${p.rule} · ${footer}`), LIMITS.footer) },
  };
}

const TIME_NAMES: Record<string, string> = { Ends: 'End', 'Response due': 'Response deadline' };

/** Category, type, status, number, then the notice's times (`skip`: labels left out). */
function noticeFields(p: AlertPayload, skip: string[] = []): EmbedField[] {
  const n = p.notice!;
  const fields: EmbedField[] = [];
  const texts = { Category: n.category, Type: n.type, Status: n.status, Notice: n.identifier };
  for (const [name, value] of Object.entries(texts)) {
    if (value.trim() !== '' && !skip.includes(name)) fields.push(field(name, inline(value)));
  }
  for (const t of noticeTimes(n)) {
    if (skip.includes(t.label)) continue;
    const relative = t.label === 'Response due';
    fields.push(field(TIME_NAMES[t.label] ?? t.label, when(t.at, p.zone, relative)));
  }
  if (p.state === 'updated' && p.changed && p.changed.length > 0) {
    fields.push(field('Changed', inline(p.changed.join(', ')), false));
  }
  return fields;
}

function noticeEmbed(p: AlertPayload, now: UtcIso): Embed {
  const n = p.notice!;
  const url = safeUrl(n.url);
  const what = p.state === 'updated' ? 'updated notice' : 'new notice';
  return {
    ...base(p, now, `${what} ${n.id}`),
    color: categoryColour(n.category),
    ...(url ? { url } : {}),
    description: clip(block(noticeText(n)), LIMITS.description) || '-',
    fields: noticeFields(p),
  };
}

const DEADLINES: Record<string, { label: string; skip: string }> = {
  response_at: { label: 'Response due', skip: 'Response due' },
  effective_at: { label: 'Takes effect', skip: 'Effective' },
  end_at: { label: 'Ends', skip: 'Ends' },
};

function deadlineEmbed(p: AlertPayload, now: UtcIso): Embed {
  const n = p.notice!;
  const d = p.deadline!;
  const url = safeUrl(n.url);
  const kind = DEADLINES[d.field] ?? { label: d.field, skip: '' };
  const unix = Math.floor(Date.parse(d.at) / 1000);
  const late = d.late ? ' (reminder sent late)' : '';
  const lead = `**${inline(kind.label)}** <t:${unix}:R>${late}: <t:${unix}:F>\n${localTime(d.at, p.zone)}`;
  return {
    ...base(p, now, `reminder ${d.before} before ${d.field}`),
    color: categoryColour(n.category),
    ...(url ? { url } : {}),
    description: clip(`${lead}\n\n${block(noticeText(n))}`, LIMITS.description),
    fields: noticeFields(p, [kind.skip]),
  };
}

type Loc = NonNullable<AlertPayload['capacity']>['locations'][number];

function percent(value: number): string {
  return `${Number(value.toFixed(1)).toLocaleString('en-US')}%`;
}

function locationField(l: Loc): EmbedField {
  const levels =
    l.unit === 'percent'
      ? `OAC **${l.oac !== null && l.opc ? percent((100 * l.oac) / l.opc) : '-'}** of OPC ` +
        `(${quantity(l.oac)}) · threshold ${percent(l.threshold)} · clear above ${percent(l.clear_above)}`
      : `OAC **${quantity(l.oac)}** · threshold ${quantity(l.threshold)} · clear above ${quantity(l.clear_above)}`;
  const where = [l.flow && `flow ${inline(l.flow)}`, l.zone && `zone ${inline(l.zone)}`];
  const lines = [
    levels,
    `OPC ${quantity(l.opc)} · TSQ ${quantity(l.tsq)} · DC ${quantity(l.dc)}`,
    where.filter(Boolean).join(' · '),
    l.reason.trim() !== '' ? `Reason: ${inline(l.reason)}` : '',
  ];
  const name =
    l.identifier && l.identifier !== l.location ? `${l.location} (${l.identifier})` : l.location;
  return field(inline(name), lines.filter(Boolean).join('\n'), false);
}

function capacityEmbed(p: AlertPayload, now: UtcIso): Embed {
  const c = p.capacity!;
  const resolved = p.state === 'resolved';
  const count = `${c.locations.length} location${c.locations.length === 1 ? '' : 's'}`;
  const fields = [field('Cycle', inline(c.cycle)), field('Gas day', inline(c.gas_day))];
  const room = LIMITS.fields - fields.length - 1;
  const shown = c.locations.length > room + 1 ? c.locations.slice(0, room) : c.locations;
  fields.push(...shown.map(locationField));
  const rest = c.locations.slice(shown.length);
  if (rest.length > 0) {
    fields.push(
      field(`…and ${rest.length} more`, inline(rest.map((l) => l.location).join(', ')), false),
    );
  }
  return {
    ...base(p, now, resolved ? 'capacity recovered' : 'low capacity'),
    color: resolved ? COLOURS.resolved : COLOURS.lowCapacity,
    description: resolved
      ? `OAC is back above the clear level at ${count}.`
      : `OAC is below the threshold at ${count}.`,
    fields,
  };
}

/** One alert as one embed, each part within its own limit. */
export function renderEmbed(alert: Alert, now: UtcIso): Embed {
  const p = alert.payload;
  if (p.kind === 'capacity' && p.capacity) return capacityEmbed(p, now);
  if (p.kind === 'deadline' && p.deadline && p.notice) return deadlineEmbed(p, now);
  if (p.notice) return noticeEmbed(p, now);
  return { ...base(p, now, p.kind), color: COLOURS.other };
}

/** Alerts (a digest of up to 10) as one message within every limit. */
export function renderMessage(alerts: readonly Alert[], now: UtcIso): DiscordMessage {
  const shown = alerts.slice(0, LIMITS.embeds);
  const embeds = fitEmbeds(shown.map((a) => renderEmbed(a, now)));
  const more = alerts.length > shown.length ? ` (first ${shown.length} shown)` : '';
  return {
    ...(alerts.length > 1 ? { content: `**${alerts.length} pipewatch alerts**${more}` } : {}),
    embeds,
    allowed_mentions: { parse: [] },
  };
}

/** The embed greyed out and marked as superseded; marking twice changes nothing. */
export function supersededEmbed(e: Embed): Embed {
  const footer = e.footer?.text ?? '';
  const text = footer.startsWith(SUPERSEDED)
    ? footer
    : `${SUPERSEDED} · ${footer}`.replace(/ · $/, '');
  return { ...e, color: COLOURS.superseded, footer: { text: clip(text, LIMITS.footer) } };
}

/**
 * Discord's `nonce` for a message carrying these alerts: 25 characters of base64url
 * SHA-256 of their keys, the same on every resend of the same alerts.
 */
export function nonceFor(alerts: readonly Alert[]): string {
  const keys = alerts.map((a) => a.key).sort();
  return createHash('sha256').update(keys.join('\n')).digest('base64url').slice(0, 25);
}
