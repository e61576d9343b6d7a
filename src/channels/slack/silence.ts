/**
 * The Slack layout of a silence's summary: a header saying which silence ended, the
 * count (`While muted: 4 alerts`) with what it muted and when, then the held alerts as
 * a compact list, one line each, linked to the notice when it has a URL (otherwise its
 * id), and `…and 5 more` past those listed. Alone it lists every alert the summary
 * carries, over as many sections as they need; in a digest, as many as fit its one
 * section. Held alerts' titles, rules and the matchers are escaped as upstream text.
 */
import type { AlertPayload, HeldAlert } from '../../alerts/payload.js';
import {
  endedHow,
  fitHeld,
  heldId,
  heldLabel,
  listed,
  moreHeld,
  namesPipeline,
  silenceEnded,
  unlisted,
  whileMuted,
} from '../silence.js';
import { headline, shortPipelineName } from '../text.js';
import type { Block } from './blocks.js';
import { context, fields, header, LIMITS, section } from './blocks.js';
import { mdLine, mdLink, plainLine, safeUrl, slackDate } from './escape.js';
import { footer } from './layouts.js';

/** Longest title of a held alert in a list line. */
const TITLE_MAX = 150;
/** Longest link in a list line; a longer one gives way to the alert's id. */
const URL_MAX = 1000;

/** One held alert: `• <url|title> · new notice · <date>`, its id when it has no link. */
export function heldLine(p: AlertPayload, h: HeldAlert): string {
  const title = mdLine(h.title, TITLE_MAX) || '-';
  const url = h.url === null ? undefined : safeUrl(h.url);
  const linked = url && url.length <= URL_MAX ? mdLink(url, title) : undefined;
  const parts = [linked ?? title];
  if (namesPipeline(p, h)) parts.push(mdLine(h.pipeline, 60));
  parts.push(mdLine(heldLabel(h), 60));
  if (!linked) parts.push(mdLine(heldId(h), 120));
  parts.push(slackDate(h.at, p.zone));
  return `• ${parts.join(' · ')}`;
}

/** The summary on its own: header, count, when, the whole list, the rule. */
export function silenceBlocks(p: AlertPayload): Block[] {
  const s = p.silence;
  const name = shortPipelineName(p);
  if (!s) return [header(plainLine(`\ud83d\udd15 ${name}: ${p.kind} ${p.state}`, 150))];
  const blocks: Block[] = [
    header(plainLine(`\ud83d\udd15 ${name}: ${silenceEnded(s)}`, 150)),
    section(`*${whileMuted(s)}*\nMuted: ${mdLine(s.matchers, 1000) || '-'}`),
    fields([
      ['From', slackDate(s.started_at, p.zone)],
      ['Until', `${slackDate(s.ended_at, p.zone)} (${endedHow(s)})`],
    ]),
  ];
  let lines: string[] = [];
  const flush = () => {
    if (lines.length > 0) blocks.push(section(lines.join('\n')));
    lines = [];
  };
  for (const line of listed(s).map((h) => heldLine(p, h))) {
    if ([...lines, line].join('\n').length > LIMITS.section) flush();
    lines.push(line);
  }
  flush();
  const more = unlisted(s);
  if (more > 0) blocks.push(context([moreHeld(more)]));
  blocks.push(footer([p.rule]));
  return blocks;
}

/** The summary in a digest: its headline, then as many list lines as fit one section. */
export function silenceItem(p: AlertPayload, withPipeline: boolean): string {
  const what = headline(p);
  const heading = `*${mdLine(withPipeline ? `${shortPipelineName(p)}: ${what}` : what, 300)}*`;
  const s = p.silence;
  if (!s) return heading;
  const lines = listed(s).map((h) => heldLine(p, h));
  const room = LIMITS.section - heading.length - 1;
  const shown = fitHeld(lines, room, unlisted(s));
  const hidden = lines.length - shown + unlisted(s);
  const tail = hidden > 0 ? [moreHeld(hidden)] : [];
  return [heading, ...lines.slice(0, shown), ...tail].join('\n');
}
