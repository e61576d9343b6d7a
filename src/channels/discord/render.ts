/**
 * Discord messages for alerts: one embed per alert (a notice, a deadline reminder, a
 * capacity alert or a silence's summary, `silence.ts`), coloured by category or state, with times as Discord timestamp
 * tokens plus the pipeline's local time. Capacity alerts of one pipeline, cycle, gas day
 * and state are merged first, and each shows its locations as one table in a code block.
 * A reminder's title says how long is left at the send time. Upstream text is escaped
 * for Discord markdown and its mentions are broken; `allowed_mentions` pings nobody
 * anyway. Every embed and the message as a whole stay within Discord's limits,
 * shrinking text when needed (a table by whole rows). A message to a channel whose
 * clicks the Discord app answers carries its components (`actions.ts`) below the embeds.
 */
import { createHash } from 'node:crypto';
import { type AlertPayload, partOf } from '../../alerts/payload.js';
import type { UtcIso } from '../../lib/time.js';
import { capacityLines, fitLines, mergeCapacity, moreLocations } from '../capacity.js';
import { NEXT_CYCLE_LABEL, nextCycleText } from '../next-cycle.js';
import {
  type ChangeMarks,
  changeLines,
  clip,
  headline,
  localTime,
  noticeText,
  noticeTimes,
  operationFacts,
  pipelineName,
  webUrl,
} from '../text.js';
import type { Alert } from '../types.js';
import { type ActionRow, type AlertButtons, alertComponents } from './actions.js';
import { block, codeLine, inline, plain } from './escape.js';
import { type Embed, type EmbedField, embedLength, fitEmbeds, LIMITS } from './limits.js';
import { silenceDescription, silenceFields } from './silence.js';

export { escapeMarkdown, neutraliseMentions } from './escape.js';
export { type Embed, type EmbedField, embedLength, fitEmbeds, LIMITS } from './limits.js';

/** The JSON body of `POST /channels/{id}/messages`, before the nonce and reply. */
export type DiscordMessage = {
  content?: string;
  embeds: Embed[];
  components?: ActionRow[];
  allowed_mentions: { parse: [] };
};

/** How alerts are rendered beyond what they say. */
export interface RenderOptions {
  /**
   * Components under the alert (Acknowledge, Remind me, the Mute menu), for a channel
   * whose clicks the Discord app answers. Off: the message carries embeds only.
   */
  interactive?: boolean | undefined;
}

export const COLOURS = {
  critical: 0xd32f2f,
  nonCritical: 0xf9a825,
  other: 0x1e88e5,
  lowCapacity: 0xef6c00,
  resolved: 0x2e7d32,
  superseded: 0x9e9e9e,
  silence: 0x607d8b,
} as const;

/** Most alerts in one message: one embed each, up to Discord's ten a message. */
export const MAX_DIGEST = LIMITS.embeds;

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
  const rule = p.rule.includes(', ') ? 'rules' : 'rule';
  return {
    author: { name: clip(plain(pipelineName(p)), LIMITS.author) },
    title: clip(inline(headline(p, now)), LIMITS.title),
    timestamp: new Date(now).toISOString(),
    footer: { text: clip(plain(`pipewatch · ${rule} ${p.rule} · ${footer}`), LIMITS.footer) },
  };
}

const TIME_NAMES: Record<string, string> = { Ends: 'End', 'Response due': 'Response deadline' };

/** Category, type, status, number, then the notice's times (`skip`: labels left out). */
function noticeFields(p: AlertPayload, skip: string[] = []): EmbedField[] {
  const n = partOf(p, 'notice');
  const fields: EmbedField[] = [];
  const texts = { Category: n.category, Type: n.type, Status: n.status, Notice: n.identifier };
  for (const [name, value] of Object.entries(texts)) {
    if (value.trim() !== '' && !skip.includes(name)) fields.push(field(name, inline(value)));
  }
  for (const t of noticeTimes(n)) {
    if (skip.includes(t.label)) continue;
    const relative = t.label === 'Response due';
    const value = 'at' in t ? when(t.at, p.zone, relative) : t.text;
    fields.push(field(TIME_NAMES[t.label] ?? t.label, value));
  }
  fields.push(...changeFields(p));
  return fields;
}

/** Words removed struck through, words added in bold. */
const DISCORD_MARKS: ChangeMarks = {
  text: inline,
  added: (t) => `**${t}**`,
  removed: (t) => `~~${t}~~`,
};

/**
 * What changed, a field each (`Status`: `Initiate → Revised`), after the notice it
 * supersedes; an alert without `changes` names the fields the API changed, as before.
 */
function changeFields(p: AlertPayload): EmbedField[] {
  const fields = changeLines(p, DISCORD_MARKS).map(([label, value]) =>
    field(`Changed: ${label}`, value, false),
  );
  const s = p.supersedes;
  if (s) {
    const label = inline(`Notice ${s.identifier || `#${s.id}`}: ${s.subject}`);
    const url = safeUrl(s.url);
    fields.unshift(
      field(
        'Supersedes',
        url ? `[${clip(label, 300)}](${url.replace(/\(/g, '%28').replace(/\)/g, '%29')})` : label,
        false,
      ),
    );
  }
  if (fields.length === 0 && p.state === 'updated' && p.changed && p.changed.length > 0)
    fields.push(field('Changed', inline(p.changed.join(', ')), false));
  return fields;
}

function noticeEmbed(p: AlertPayload, now: UtcIso): Embed {
  const n = partOf(p, 'notice');
  const url = safeUrl(n.url);
  const what = p.state === 'updated' ? 'updated notice' : 'new notice';
  return {
    ...base(p, now, `${what} ${n.id}`),
    color: categoryColour(n.category),
    ...(url ? { url } : {}),
    description: clip(block(noticeText(n)), LIMITS.description) || '-',
    fields: [...noticeFields(p), ...nextCycleField(p, now)],
  };
}

/** The next nomination cycle at `now`, a field across the embed, when the alert has one. */
function nextCycleField(p: AlertPayload, now: UtcIso): EmbedField[] {
  const text = nextCycleText(p, now);
  return text ? [field(NEXT_CYCLE_LABEL, inline(text), false)] : [];
}

const DEADLINES: Record<string, { label: string; skip: string }> = {
  response_at: { label: 'Response due', skip: 'Response due' },
  effective_at: { label: 'Takes effect', skip: 'Effective' },
  end_at: { label: 'Ends', skip: 'Ends' },
};

function deadlineEmbed(p: AlertPayload, now: UtcIso): Embed {
  const n = partOf(p, 'notice');
  const d = partOf(p, 'deadline');
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

/** Room kept in a description for the fences and the `…and N more locations` line. */
const TABLE_RESERVE = 40;

/**
 * The capacity description, at most `max` characters: what happened, then the table of
 * locations in a code block with as many rows as fit, then how many more there were.
 */
function capacityDescription(p: AlertPayload, max: number): string | undefined {
  const c = partOf(p, 'capacity');
  const count = `${c.locations.length} location${c.locations.length === 1 ? '' : 's'}`;
  const lead =
    p.state === 'resolved'
      ? `OAC is back above the clear level at ${count}.`
      : `OAC is below the threshold at ${count}.`;
  const room = max - lead.length - TABLE_RESERVE;
  if (room < 80) return max >= 16 ? clip(lead, max) : undefined;
  const lines = capacityLines(c.locations, p.state, { locationWidth: 28 });
  const { text, hidden } = fitLines(lines, room, codeLine);
  const tail = hidden > 0 ? `\n${moreLocations(hidden)}` : '';
  return `${lead}\n\`\`\`\n${text}\n\`\`\`${tail}`;
}

function capacityEmbed(p: AlertPayload, now: UtcIso, max: number = LIMITS.description): Embed {
  const c = partOf(p, 'capacity');
  const resolved = p.state === 'resolved';
  const description = capacityDescription(p, Math.min(max, LIMITS.description));
  return {
    ...base(p, now, resolved ? 'capacity recovered' : 'low capacity'),
    color: resolved ? COLOURS.resolved : COLOURS.lowCapacity,
    ...(description === undefined ? {} : { description }),
    fields: [
      field('Cycle', inline(c.cycle)),
      field('Gas day', inline(c.gas_day)),
      ...nextCycleField(p, now),
    ],
  };
}

function silenceEmbed(p: AlertPayload, now: UtcIso): Embed {
  const s = partOf(p, 'silence');
  const description = silenceDescription(p, LIMITS.description);
  return {
    ...base(p, now, `silence ${s.ended_by}`),
    color: COLOURS.silence,
    ...(description === undefined ? {} : { description }),
    fields: silenceFields(p, field),
  };
}

/** One alert as one embed, each part within its own limit. */
export function renderEmbed(alert: Alert, now: UtcIso): Embed {
  const p = alert.payload;
  if (p.kind === 'capacity' && p.capacity) return capacityEmbed(p, now);
  if (p.kind === 'silence' && p.silence) return silenceEmbed(p, now);
  if (p.kind === 'deadline' && p.deadline && p.notice) return deadlineEmbed(p, now);
  if (p.notice) return noticeEmbed(p, now);
  const facts = operationFacts(p).map((f) =>
    field(
      f.label,
      'at' in f ? when(f.at, p.zone) : inline(f.text),
      !('text' in f && f.text.length > 60),
    ),
  );
  return {
    ...base(p, now, p.kind),
    color: COLOURS.other,
    ...(facts.length > 0 ? { fields: facts } : {}),
  };
}

/**
 * Alerts (a digest of up to 10) as one message within every limit. Capacity alerts of
 * one pipeline, cycle, gas day and state become one embed; a table or a silence's list
 * that had to give up room to the others is made again, by whole rows or lines, in the
 * room it was left plus what the message still has free.
 */
export function renderMessage(
  alerts: readonly Alert[],
  now: UtcIso,
  options: RenderOptions = {},
): DiscordMessage {
  const merged = mergeCapacity(alerts);
  const shown = merged.slice(0, LIMITS.embeds);
  const rendered = shown.map((a) => renderEmbed(a, now));
  const embeds = fitEmbeds(rendered);
  let spare = LIMITS.total - embeds.reduce((n, e) => n + embedLength(e), 0);
  embeds.forEach((e, i) => {
    const p = shown[i].payload;
    const remake = describer(p);
    if (!remake || e.description === rendered[i].description) return;
    const had = e.description?.length ?? 0;
    const description = remake(had + spare);
    if (description === undefined) delete e.description;
    else e.description = description;
    spare -= (description?.length ?? 0) - had;
  });
  const more = merged.length > shown.length ? ` (first ${shown.length} shown)` : '';
  const payloads = merged.map((a) => a.payload);
  const buttons = options.interactive ? alertButtons(payloads, now) : undefined;
  return {
    ...(merged.length > 1 ? { content: `**${merged.length} pipewatch alerts**${more}` } : {}),
    embeds,
    ...(buttons ? { components: alertComponents(buttons) } : {}),
    allowed_mentions: { parse: [] },
  };
}

/** The kinds of alert a pipeline's silence holds back. */
const MUTABLE: ReadonlySet<string> = new Set(['notice', 'deadline', 'capacity']);

/**
 * The components of a message in a channel, decided as Slack decides its buttons: the
 * Mute menu when every alert in it is about one pipeline's notices or capacity, and
 * Remind me on a single notice or reminder whose response is due after `now`.
 * Acknowledge goes on every one.
 */
function alertButtons(payloads: readonly AlertPayload[], now: UtcIso): AlertButtons {
  const slugs = new Set(payloads.map((p) => p.pipeline.slug));
  const mutable = slugs.size === 1 && payloads.every((p) => MUTABLE.has(p.kind));
  const [only] = payloads.length === 1 ? payloads : [];
  const due = only?.notice?.response_at;
  const ahead = due && Date.parse(due) > Date.parse(now);
  const remind = only && (only.kind === 'notice' || only.kind === 'deadline') && ahead;
  return {
    pipeline: mutable ? [...slugs][0] : undefined,
    remindNotice: remind ? only.notice?.id : undefined,
  };
}

/** How an embed's description is made again in other room, for those made by whole lines. */
function describer(p: AlertPayload): ((max: number) => string | undefined) | undefined {
  if (p.kind === 'capacity' && p.capacity) return (max) => capacityDescription(p, max);
  if (p.kind === 'silence' && p.silence) return (max) => silenceDescription(p, max);
  return undefined;
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
