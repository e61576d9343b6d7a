/**
 * The Slack layout of one alert. A notice: header with pipeline and type, the subject,
 * fields (category, status, notice id, posted, effective, end, response deadline as date
 * tokens), the body, a button to the notice. A deadline reminder: what is due and when,
 * the notice's facts, a shorter body. A capacity alert: cycle and gas day, then the
 * locations as a table. A notice and a capacity alert say the next nomination cycle at
 * the send time (`../next-cycle.ts`) in a context line. An operations alert (the API's
 * schema drifted): what changed, where and when. Each ends with a context line naming
 * the rule.
 */
import type { AlertPayload } from '../../alerts/payload.js';
import { grouped } from '../../lib/quantity.js';
import type { Notice } from '../../upstream/schemas.js';
import { nextCycleLine } from '../next-cycle.js';
import {
  type ChangeMarks,
  capacityState,
  changeLines,
  deadlineLabel,
  headline,
  noticeText,
  noticeTimes,
  oneLine,
  operationFacts,
  shortPipelineName,
} from '../text.js';
import type { AlertButtons } from './actions.js';
import type { Block } from './blocks.js';
import { context, fields, header, LIMITS, linkButton, plainSection, section } from './blocks.js';
import { capacityTable } from './capacity.js';
import { escapeText, mdLine, mdLink, plainBlock, plainLine, safeUrl, slackDate } from './escape.js';

/** Characters of notice text in a notice alert and in a reminder. */
const BODY_MAX = 3000;
const REMINDER_BODY_MAX = 1000;

export { capacityState } from '../text.js';

/**
 * What is due, without the subject: `Response due in 1 h 30 min` at `now` (the send
 * time), `Ends in 24h (late)` without it.
 */
export function dueLabel(p: AlertPayload, now?: string): string {
  return deadlineLabel(p, now);
}

/** The notice's type, or `Notice`. */
export function noticeType(n: Notice): string {
  return oneLine(n.type) || 'Notice';
}

/** `pipewatch · rule transco-constraints`. */
export function footer(rules: readonly string[]): Block {
  const names = [...new Set(rules)].map((r) => mdLine(r, 100));
  return context([`pipewatch · rule${names.length === 1 ? '' : 's'} ${names.join(', ')}`]);
}

/** Category, status and identifier, those that are set, as field pairs. */
function facts(n: Notice, withType: boolean): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (withType) pairs.push(['Type', mdLine(noticeType(n), 200)]);
  if (oneLine(n.category)) pairs.push(['Category', mdLine(n.category, 200)]);
  if (oneLine(n.status)) pairs.push(['Status', mdLine(n.status, 200)]);
  if (oneLine(n.identifier)) pairs.push(['Notice ID', mdLine(n.identifier, 200)]);
  return pairs;
}

/** The body as plain text, and a note when it was shortened. */
function body(n: Notice, max: number, hasUrl: boolean): Block[] {
  const text = noticeText(n);
  if (text === '') return [];
  const blocks: Block[] = [plainSection(plainBlock(text, max))];
  if (escapeText(text).length > max) {
    const where = hasUrl ? ' Open the notice for the full text.' : '';
    blocks.push(context([`Text shortened to ${grouped(max)} characters.${where}`]));
  }
  return blocks;
}

function openButton(n: Notice): Block[] {
  const url = safeUrl(n.url);
  return url ? [linkButton('Open notice', url, 'open_notice')] : [];
}

/** Words removed struck through, words added in bold. */
const SLACK_MARKS: ChangeMarks = {
  text: (t) => mdLine(t, 1000),
  added: (t) => `*${t}*`,
  removed: (t) => `~${t}~`,
  apart: true,
};

/** `Supersedes: <link|Notice 26-0412: subject>`, linked when the notice has a link. */
function supersedesLine(p: AlertPayload): string | undefined {
  const s = p.supersedes;
  if (!s) return undefined;
  const label = mdLine(`Notice ${s.identifier || `#${s.id}`}: ${s.subject}`, 300);
  const url = safeUrl(s.url);
  return `*Supersedes:* ${url ? mdLink(url, label) : label}`;
}

/**
 * What changed, a line each (`*Status:* Initiate → Revised`), after the notice it
 * supersedes; an alert without `changes` names the fields the API changed, as before.
 */
export function changeBlocks(p: AlertPayload): Block[] {
  const lines = changeLines(p, SLACK_MARKS).map(([label, value]) => `*${label}:* ${value}`);
  const supersedes = supersedesLine(p);
  if (supersedes) lines.unshift(supersedes);
  if (lines.length > 0) return [section(lines.join('\n'))];
  if (p.state === 'updated' && p.changed && p.changed.length > 0)
    return [context([`Changed: ${mdLine(p.changed.join(', '), 500)}`])];
  return [];
}

/** A new or updated notice; at `now` (the send time), the next nomination cycle it bears on. */
export function noticeBlocks(p: AlertPayload, n: Notice, blockId: string, now?: string): Block[] {
  const updated = p.state === 'updated' ? 'Updated ' : '';
  const blocks: Block[] = [
    header(plainLine(`${shortPipelineName(p)}: ${updated}${noticeType(n)}`, 150), blockId),
  ];
  if (oneLine(n.subject)) blocks.push(section(`*${mdLine(n.subject, 1000)}*`));
  const pairs = [
    ...facts(n, false),
    ...noticeTimes(n).map((t): [string, string] => [
      t.label,
      'at' in t ? slackDate(t.at, p.zone) : t.text,
    ]),
  ];
  if (pairs.length > 0) blocks.push(fields(pairs));
  blocks.push(...nextCycle(p, now));
  blocks.push(...changeBlocks(p));
  blocks.push(...body(n, BODY_MAX, safeUrl(n.url) !== undefined), ...openButton(n));
  blocks.push(footer([p.rule]));
  return blocks;
}

/** A reminder before a notice's deadline, saying how long is left at `now`. */
export function deadlineBlocks(p: AlertPayload, n: Notice, blockId: string, now?: string): Block[] {
  const blocks: Block[] = [
    header(plainLine(`\u23f0 ${shortPipelineName(p)}: ${dueLabel(p, now)}`, 150), blockId),
  ];
  if (oneLine(n.subject)) blocks.push(section(`*${mdLine(n.subject, 1000)}*`));
  const pairs: Array<[string, string]> = [];
  if (p.deadline) pairs.push(['Due', slackDate(p.deadline.at, p.zone)]);
  pairs.push(...facts(n, true));
  if (n.posted_at) pairs.push(['Posted', slackDate(n.posted_at, p.zone)]);
  blocks.push(fields(pairs));
  blocks.push(...body(n, REMINDER_BODY_MAX, safeUrl(n.url) !== undefined), ...openButton(n));
  blocks.push(footer([p.rule]));
  return blocks;
}

/** `Next: Timely cycle for gas day …` as a context line, when the alert has one at `now`. */
export function nextCycle(p: AlertPayload, now: string | undefined): Block[] {
  const line = nextCycleLine(p, now);
  return line ? [context([mdLine(line, 300)])] : [];
}

/**
 * A capacity alert: firing (OAC below the threshold) or resolved (back above), its
 * headline, then one table of its locations, then the next nomination cycle at `now`.
 * A merged alert names each of its rules.
 */
export function capacityBlocks(p: AlertPayload, now?: string): Block[] {
  const c = p.capacity;
  if (!c) return [header(plainLine(`${shortPipelineName(p)}: ${capacityState(p)}`, 150))];
  const icon = p.state === 'resolved' ? '\u2705' : '\ud83d\udd3b';
  const what = p.state === 'resolved' ? 'back above the recovery level' : 'below the threshold';
  const count = `${c.locations.length} location${c.locations.length === 1 ? '' : 's'}`;
  const lead = `OAC ${what} at ${count}:`;
  return [
    header(plainLine(`${icon} ${shortPipelineName(p)}: ${headline(p)}`, 150)),
    section(`${lead}\n${capacityTable(c.locations, p.state, LIMITS.section - lead.length - 1)}`),
    ...nextCycle(p, now),
    footer(p.rule.split(', ')),
  ];
}

/** An alert about pipewatch itself or the API (schema drift), for whoever runs it. */
export function operationsBlocks(p: AlertPayload): Block[] {
  const o = p.operations;
  const what = o ? o.event.replace(/-/g, ' ') : `${p.kind} ${p.state}`;
  const blocks: Block[] = [
    header(plainLine(`\u2699\ufe0f ${shortPipelineName(p)}: ${what}`, 150)),
    section(mdLine(headline(p), 2000)),
  ];
  if (o?.event === 'schema-drift') {
    const hash = (h: string) => mdLine(h.slice(0, 12) || '-', 20);
    blocks.push(
      fields([
        ['Table', mdLine(o.table, 200)],
        ['Seen', slackDate(o.seen_at, p.zone)],
        ['Previous hash', hash(o.previous_hash)],
        ['New hash', hash(o.hash)],
      ]),
    );
  } else if (o?.event === 'unknown-pipeline') {
    blocks.push(
      fields([
        ['Rule', mdLine(o.rule, 200)],
        ['Written at', mdLine(o.at, 200)],
        ['Pipeline', mdLine(o.slug, 200)],
        ['Did you mean', mdLine(o.suggestion ?? '-', 200)],
      ]),
    );
  } else if (o?.event === 'unknown-location') {
    blocks.push(
      fields([
        ['Rule', mdLine(o.rule, 200)],
        ['Written at', mdLine(o.at, 200)],
        ['Location', mdLine(o.location, 200)],
        ['Did you mean', mdLine(o.suggestion ?? '-', 200)],
      ]),
    );
  } else if (o?.event === 'channel-gone') {
    blocks.push(
      fields([
        ['Channel', mdLine(o.channel, 200)],
        ['Subscriptions paused', String(o.paused)],
        ['Why', mdLine(o.reason, 500)],
      ]),
    );
  } else {
    const facts = operationFacts(p);
    if (facts.length > 0)
      blocks.push(
        fields(
          facts.map((f) => [f.label, 'at' in f ? slackDate(f.at, p.zone) : mdLine(f.text, 500)]),
        ),
      );
  }
  blocks.push(footer([p.rule]));
  return blocks;
}

/** The kinds of alert a pipeline's silence holds back. */
const MUTABLE: ReadonlySet<string> = new Set(['notice', 'deadline', 'capacity']);

/**
 * The buttons of a message in a channel: Mute pipeline when every alert in it is about
 * one pipeline's notices or capacity, and Remind me on a single notice or reminder whose
 * response is due after `now`. Acknowledge goes on every one.
 */
export function alertButtons(payloads: readonly AlertPayload[], now?: string): AlertButtons {
  const slugs = new Set(payloads.map((p) => p.pipeline.slug));
  const mutable = slugs.size === 1 && payloads.every((p) => MUTABLE.has(p.kind));
  const [only] = payloads.length === 1 ? payloads : [];
  const due = only?.notice?.response_at;
  const ahead = due && (now === undefined || Date.parse(due) > Date.parse(now));
  const remind = only && (only.kind === 'notice' || only.kind === 'deadline') && ahead;
  return {
    pipeline: mutable ? [...slugs][0] : undefined,
    remindNotice: remind ? only.notice?.id : undefined,
  };
}
