/**
 * An alert as the message a Teams workflow posts: one Adaptive Card (1.5), pure. It
 * says what the Slack message says, laid out as a card: a notice's headline, subject,
 * facts (times in the pipeline's zone), the next nomination cycle, what changed, its
 * text, and an "Open notice" button; a reminder's deadline and a shorter text; a
 * capacity alert's locations as a table; a silence's summary with the alerts it held;
 * an operations alert's facts (a silence's card is `silence.ts`). Each ends with the rule. Upstream text goes through
 * `escape.ts`, and the message is fitted to Teams' size limit (`limits.ts`).
 */
import type { AlertPayload } from '../../alerts/payload.js';
import { grouped } from '../../lib/quantity.js';
import type { Notice } from '../../upstream/schemas.js';
import { capacityCells, moreLocations } from '../capacity.js';
import { nextCycleLine } from '../next-cycle.js';
import {
  type ChangeMarks,
  changeLines,
  clip,
  deadlineLabel,
  headline,
  noticeText,
  noticeTimes,
  oneLine,
  operationFacts,
  shortPipelineName,
} from '../text.js';
import {
  type CardElement,
  facts,
  footer,
  heading,
  message,
  note,
  type OpenUrl,
  openUrl,
  type TeamsMessage,
  table,
  text,
  when,
} from './card.js';
import { block, inline, mdLink, neutralise, safeUrl } from './escape.js';
import { fitMessage, type Layout, type Room } from './limits.js';
import { silenceCard } from './silence.js';

export type { TeamsMessage } from './card.js';

/** Characters of notice text in a reminder, as on Slack; a notice shows what fits. */
const REMINDER_TEXT_MAX = 1000;

/** The message for one alert at `now`, the send time (reminders say the time left then). */
export function renderTeams(p: AlertPayload, now?: string): TeamsMessage {
  const [build, full] = layout(p, now);
  return fitMessage(build, full);
}

function layout(p: AlertPayload, now: string | undefined): Layout {
  const n = p.notice;
  if (p.kind === 'capacity' && p.capacity) return capacityCard(p, now);
  if (p.kind === 'deadline' && n) return deadlineCard(p, n, now);
  if (p.kind === 'notice' && n) return noticeCard(p, n, now);
  if (p.kind === 'silence') return silenceCard(p);
  return [() => message(operationsCard(p)), { text: 0, rows: 0 }];
}

function noticeType(n: Notice): string {
  return oneLine(n.type) || 'Notice';
}

/** Type (for a reminder), category, status and identifier, those that are set. */
function noticeFacts(n: Notice, withType: boolean): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (withType) pairs.push(['Type', inline(noticeType(n), 200)]);
  if (oneLine(n.category)) pairs.push(['Category', inline(n.category, 200)]);
  if (oneLine(n.status)) pairs.push(['Status', inline(n.status, 200)]);
  if (oneLine(n.identifier)) pairs.push(['Notice ID', inline(n.identifier, 200)]);
  return pairs;
}

/** The headline, then the subject in bold when there is one. */
function top(title: string, n: Notice): CardElement[] {
  const elements: CardElement[] = [heading(inline(title, 300))];
  if (oneLine(n.subject)) elements.push(text(inline(n.subject, 1000), true));
  return elements;
}

/**
 * The notice's text (already safe), at most `max` characters, and a note when it was
 * shortened.
 */
function noticeBody(body: string, max: number, hasUrl: boolean): CardElement[] {
  if (body === '') return [];
  const where = hasUrl ? ' Open the notice for the full text.' : '';
  if (max <= 0) return [note(`Text left out to fit Teams' message size.${where}`)];
  if (body.length <= max) return [text(body)];
  return [
    text(clip(body, max)),
    note(`Text shortened to ${grouped(max)} of ${grouped(body.length)} characters.${where}`),
  ];
}

function openNotice(url: string | undefined): OpenUrl[] {
  return url ? [openUrl('Open notice', url)] : [];
}

/** `Next: Evening cycle for gas day …` when the alert has one at `now`. */
function nextCycle(p: AlertPayload, now: string | undefined): CardElement[] {
  const line = nextCycleLine(p, now);
  return line ? [note(inline(line, 300))] : [];
}

/** Words added in bold, words removed struck through. */
const TEAMS_MARKS: ChangeMarks = {
  text: (t) => neutralise(t),
  added: (t) => `**${t}**`,
  removed: (t) => `~~${t}~~`,
};

/** What changed, a line each, after the notice it supersedes, as on Slack. */
function changes(p: AlertPayload): CardElement[] {
  const lines = changeLines(p, TEAMS_MARKS).map(([label, value]) => `**${label}:** ${value}`);
  const s = p.supersedes;
  if (s) {
    const label = inline(`Notice ${s.identifier || `#${s.id}`}: ${s.subject}`, 300);
    const url = safeUrl(s.url);
    lines.unshift(`**Supersedes:** ${url ? mdLink(url, label) : label}`);
  }
  if (lines.length > 0) return lines.map((l) => text(l));
  if (p.state === 'updated' && p.changed && p.changed.length > 0)
    return [note(`Changed: ${inline(p.changed.join(', '), 500)}`)];
  return [];
}

function noticeCard(p: AlertPayload, n: Notice, now: string | undefined): Layout {
  const updated = p.state === 'updated' ? 'Updated ' : '';
  const pairs = [
    ...noticeFacts(n, false),
    ...noticeTimes(n).map((t): [string, string] => [
      t.label,
      'at' in t ? when(t.at, p.zone) : t.text,
    ]),
  ];
  const url = safeUrl(n.url);
  const body = block(noticeText(n));
  const build = (room: Room) =>
    message(
      [
        ...top(`${shortPipelineName(p)}: ${updated}${noticeType(n)}`, n),
        ...facts(pairs),
        ...nextCycle(p, now),
        ...changes(p),
        ...noticeBody(body, room.text, url !== undefined),
        footer([p.rule]),
      ],
      openNotice(url),
    );
  return [build, { text: body.length, rows: 0 }];
}

function deadlineCard(p: AlertPayload, n: Notice, now: string | undefined): Layout {
  const pairs: Array<[string, string]> = [];
  if (p.deadline) pairs.push(['Due', when(p.deadline.at, p.zone)]);
  pairs.push(...noticeFacts(n, true));
  if (n.posted_at) pairs.push(['Posted', when(n.posted_at, p.zone)]);
  const url = safeUrl(n.url);
  const body = block(noticeText(n));
  const build = (room: Room) =>
    message(
      [
        ...top(`\u23f0 ${shortPipelineName(p)}: ${deadlineLabel(p, now)}`, n),
        ...facts(pairs),
        ...noticeBody(body, room.text, url !== undefined),
        footer([p.rule]),
      ],
      openNotice(url),
    );
  return [build, { text: Math.min(REMINDER_TEXT_MAX, body.length), rows: 0 }];
}

/** Relative widths of the capacity table's columns: location, flow, OAC, OPC, level, alert. */
const CAPACITY_WIDTHS = [4, 1, 2, 2, 2, 1];

function capacityCard(p: AlertPayload, now: string | undefined): Layout {
  const c = p.capacity;
  const locations = c?.locations ?? [];
  const [head = [], ...rows] = capacityCells(locations, p.state).map((r) =>
    r.map((cell) => inline(cell, 200)),
  );
  const icon = p.state === 'resolved' ? '\u2705' : '\ud83d\udd3b';
  const what = p.state === 'resolved' ? 'back above the recovery level' : 'below the threshold';
  const count = `${locations.length} location${locations.length === 1 ? '' : 's'}`;
  const build = (room: Room) => {
    const hidden = rows.length - room.rows;
    return message([
      heading(inline(`${icon} ${shortPipelineName(p)}: ${headline(p)}`, 300)),
      text(`OAC ${what} at ${count}:`),
      table([head, ...rows.slice(0, room.rows)], CAPACITY_WIDTHS.slice(0, head.length)),
      ...(hidden > 0 ? [note(moreLocations(hidden))] : []),
      ...nextCycle(p, now),
      footer(p.rule.split(', ')),
    ]);
  };
  return [build, { text: 0, rows: rows.length }];
}

/** The facts of an operations alert, as Slack shows them. */
function operationPairs(p: AlertPayload): Array<[string, string]> {
  const o = p.operations;
  const v = (t: string) => inline(t, 200);
  switch (o?.event) {
    case 'schema-drift':
      return [
        ['Table', v(o.table)],
        ['Seen', when(o.seen_at, p.zone)],
        ['Previous hash', v(o.previous_hash.slice(0, 12) || '-')],
        ['New hash', v(o.hash.slice(0, 12) || '-')],
      ];
    case 'unknown-pipeline':
      return [
        ['Rule', v(o.rule)],
        ['Written at', v(o.at)],
        ['Pipeline', v(o.slug)],
        ['Did you mean', v(o.suggestion ?? '-')],
      ];
    case 'unknown-location':
      return [
        ['Rule', v(o.rule)],
        ['Written at', v(o.at)],
        ['Location', v(o.location)],
        ['Did you mean', v(o.suggestion ?? '-')],
      ];
    case 'channel-gone':
      return [
        ['Channel', v(o.channel)],
        ['Subscriptions paused', String(o.paused)],
        ['Why', inline(o.reason, 500)],
      ];
    default:
      return operationFacts(p).map((f) => [
        f.label,
        'at' in f ? when(f.at, p.zone) : inline(f.text, 500),
      ]);
  }
}

/** An alert about pipewatch itself or the API, for whoever runs it. */
function operationsCard(p: AlertPayload): CardElement[] {
  const o = p.operations;
  const what = o ? o.event.replace(/-/g, ' ') : `${p.kind} ${p.state}`;
  return [
    heading(inline(`\u2699\ufe0f ${shortPipelineName(p)}: ${what}`, 300)),
    text(inline(headline(p), 2000)),
    ...facts(operationPairs(p)),
    footer([p.rule]),
  ];
}
