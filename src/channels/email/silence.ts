/**
 * A silence's summary as a section of an alert email, in both parts: what it muted and
 * when, how many alerts it held back, then the held alerts as a list, each linked to its
 * notice when it has an http(s) URL (otherwise its id), and `…and 5 more` past those
 * listed. Every text is the sender's or a pipeline's, so it is escaped in the HTML and
 * put on one line in both parts.
 */
import { type AlertPayload, type HeldAlert, partOf } from '../../alerts/payload.js';
import { escapeHtml as esc } from '../../lib/escape-html.js';
import {
  endedHow,
  heldId,
  heldLabel,
  listed,
  moreHeld,
  namesPipeline,
  unlisted,
  whileMuted,
} from '../silence.js';
import { clip, localTime, oneLine, webUrl } from '../text.js';
import { type Field, fieldTable, h2, type Section } from './html.js';

/** Longest title of a held alert in the list. */
const TITLE_MAX = 300;
/** Longest matchers shown. */
const MATCHERS_MAX = 1000;

/** `Fri, Nov 20, 2026, 2:30 PM UTC`, in the alert's zone, or UTC when it is unknown. */
function at(iso: string, zone: string): string {
  try {
    return localTime(iso, zone);
  } catch {
    return localTime(iso, 'UTC');
  }
}

/** A held alert's facts after its title: `low OAC · rule transco-low-oac · <time>`. */
function facts(p: AlertPayload, h: HeldAlert, linked: boolean): string {
  const parts: string[] = [];
  if (namesPipeline(p, h)) parts.push(clip(oneLine(h.pipeline), 60));
  parts.push(heldLabel(h));
  if (!linked) parts.push(clip(heldId(h), 120));
  parts.push(at(h.at, p.zone));
  return parts.join(' · ');
}

/** The summary's section, under `heading` (the alert's title). */
export function silenceSection(p: AlertPayload, heading: string): Section {
  const s = partOf(p, 'silence');
  const fields: Field[] = [
    ['Muted', clip(oneLine(s.matchers), MATCHERS_MAX) || '-'],
    ['From', at(s.started_at, p.zone)],
    ['Until', `${at(s.ended_at, p.zone)} (${endedHow(s)})`],
  ];
  const items = listed(s).map((h) => {
    const title = clip(oneLine(h.title), TITLE_MAX) || '-';
    const url = h.url === null ? undefined : webUrl(h.url);
    return { title, url, facts: facts(p, h, url !== undefined) };
  });
  const more = unlisted(s);
  const intro = `${whileMuted(s)}${items.length > 0 ? ', newest first:' : ''}`;
  const text = [
    heading,
    '',
    ...fields.map(([l, v]) => `${`${l}:`.padEnd(14)}${v}`),
    '',
    intro,
    '',
    ...items.flatMap((i) => [`- ${i.title}`, `  ${i.facts}${i.url ? ` · ${i.url}` : ''}`]),
    ...(more > 0 ? [moreHeld(more)] : []),
  ].join('\n');
  const li = items.map((i) => {
    const title = i.url
      ? `<a href="${esc(i.url)}" rel="noopener noreferrer" target="_blank" style="color:#0b5cad">${esc(i.title)}</a>`
      : esc(i.title);
    return `<li style="margin:0 0 6px">${title}<br><span style="color:#57606a;font-size:13px">${esc(i.facts)}</span></li>`;
  });
  const html = [
    h2(heading),
    fieldTable(fields),
    `<p style="margin:0 0 8px;font-weight:bold">${esc(intro)}</p>`,
    li.length > 0 ? `<ul style="margin:0 0 12px;padding-left:20px">${li.join('')}</ul>` : '',
    more > 0 ? `<p style="margin:0 0 12px;color:#57606a">${esc(moreHeld(more))}</p>` : '',
  ].join('\n');
  return { text, html };
}
