/**
 * The Teams card of a silence's summary, as on Slack: which silence ended, what it
 * muted, from when until when, then each held alert on a line of its own, linked to its
 * notice when it has a link, and `…and 5 more` past those the card lists (the summary's,
 * or fewer when Teams' size limit says so).
 */
import type { AlertPayload } from '../../alerts/payload.js';
import {
  endedHow,
  heldId,
  heldLabel,
  listed,
  moreHeld,
  namesPipeline,
  silenceEnded,
  unlisted,
  whileMuted,
} from '../silence.js';
import { shortPipelineName } from '../text.js';
import { facts, footer, heading, message, note, text, when } from './card.js';
import { inline, mdLink, safeUrl } from './escape.js';
import type { Layout, Room } from './limits.js';

/** The summary's card, its rows the held alerts listed. */
export function silenceCard(p: AlertPayload): Layout {
  const s = p.silence;
  const name = shortPipelineName(p);
  if (!s)
    return [
      () => message([heading(inline(`${name}: ${p.kind} ${p.state}`, 300))]),
      { text: 0, rows: 0 },
    ];
  const lines = listed(s).map((h) => {
    const title = inline(h.title, 150) || '-';
    const url = h.url === null ? undefined : safeUrl(h.url);
    const parts = [url && url.length <= 1000 ? mdLink(url, title) : title];
    if (namesPipeline(p, h)) parts.push(inline(h.pipeline, 60));
    parts.push(inline(heldLabel(h), 60));
    if (!url) parts.push(inline(heldId(h), 120));
    parts.push(when(h.at, p.zone));
    return text(`• ${parts.join(' · ')}`);
  });
  const build = (room: Room) => {
    const more = lines.length - room.rows + unlisted(s);
    return message([
      heading(inline(`\ud83d\udd15 ${name}: ${silenceEnded(s)}`, 300)),
      text(`**${whileMuted(s)}**`),
      text(`Muted: ${inline(s.matchers, 1000) || '-'}`),
      ...facts([
        ['From', when(s.started_at, p.zone)],
        ['Until', `${when(s.ended_at, p.zone)} (${endedHow(s)})`],
      ]),
      ...lines.slice(0, room.rows),
      ...(more > 0 ? [note(moreHeld(more))] : []),
      footer([p.rule]),
    ]);
  };
  return [build, { text: 0, rows: lines.length }];
}
