/**
 * A silence's summary in a Discord embed: the held alerts as a list in the description,
 * one line each, a masked link to the notice when it has a URL (otherwise its id), the
 * time as a timestamp token, and `…and 5 more` past those that fit; what it muted and
 * when as fields. Titles, rules and matchers are escaped as upstream text.
 */
import { type AlertPayload, type HeldAlert, partOf } from '../../alerts/payload.js';
import {
  endedHow,
  fitHeld,
  heldId,
  heldLabel,
  listed,
  moreHeld,
  namesPipeline,
  unlisted,
} from '../silence.js';
import { clip, webUrl } from '../text.js';
import { inline } from './escape.js';
import type { EmbedField } from './limits.js';

/** Longest title of a held alert in a list line. */
const TITLE_MAX = 150;
/** Longest link in a list line; a longer one gives way to the alert's id. */
const URL_MAX = 1000;
/** The least room worth a list: under it, the embed has no description. */
const LIST_MIN = 80;

/** An http(s) URL fit for a masked link: parentheses encoded, so none ends it early. */
function linkUrl(url: string | null): string | undefined {
  if (url === null) return undefined;
  return webUrl(url, URL_MAX)?.replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29'));
}

/** One held alert: `• [title](url) · new notice · <t:…:f>`, its id when it has no link. */
function heldLine(p: AlertPayload, h: HeldAlert): string {
  const title = clip(inline(h.title), TITLE_MAX) || '-';
  const url = linkUrl(h.url);
  const parts = [url ? `[${title}](${url})` : title];
  if (namesPipeline(p, h)) parts.push(clip(inline(h.pipeline), 60));
  parts.push(inline(heldLabel(h)));
  if (!url) parts.push(clip(inline(heldId(h)), 120));
  parts.push(`<t:${Math.floor(Date.parse(h.at) / 1000)}:f>`);
  return `• ${parts.join(' · ')}`;
}

/** The same alert in a few words, for a digest too crowded for whole lines: its id and kind. */
function shortLine(h: HeldAlert): string {
  return `• ${clip(inline(heldId(h)), 120)} · ${inline(heldLabel(h))}`;
}

/**
 * The description, at most `max` characters: as many list lines as fit, then how many
 * more were held. When not one whole line fits (a crowded digest), each alert is listed
 * by its id alone; undefined when not even that fits (the title has the count).
 */
export function silenceDescription(p: AlertPayload, max: number): string | undefined {
  const s = partOf(p, 'silence');
  if (max < LIST_MIN) return undefined;
  const held = listed(s);
  let lines = held.map((h) => heldLine(p, h));
  let shown = fitHeld(lines, max, unlisted(s));
  if (shown === 0) {
    lines = held.map(shortLine);
    shown = fitHeld(lines, max, unlisted(s));
  }
  if (shown === 0) return undefined;
  const hidden = lines.length - shown + unlisted(s);
  return [...lines.slice(0, shown), ...(hidden > 0 ? [moreHeld(hidden)] : [])].join('\n');
}

/** What it muted, and from when until when, as timestamp tokens each reader sees in their zone. */
export function silenceFields(
  p: AlertPayload,
  field: (name: string, value: string, inline?: boolean) => EmbedField,
): EmbedField[] {
  const s = partOf(p, 'silence');
  const when = (iso: string) => `<t:${Math.floor(Date.parse(iso) / 1000)}:f>`;
  return [
    field('Muted', inline(s.matchers), false),
    field('From', when(s.started_at)),
    field('Until', `${when(s.ended_at)}\n${endedHow(s)}`),
  ];
}
