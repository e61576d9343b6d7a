/**
 * Alerts as a Slack message, `{ text, blocks }`, pure. Capacity alerts of the same
 * pipeline, cycle, gas day and state are merged into one table first (`../capacity.ts`).
 * One alert gets its full layout (`layouts.ts`, a silence's summary `silence.ts`);
 * several become a compact digest: a header, one section per alert with a link to the
 * notice and its key facts (a silence's summary with its list of held alerts), and the
 * rules at the end. `text` is the notification fallback, always set. Reminders say how
 * long is left at the send time. Every piece of upstream text is escaped (see
 * `escape.ts`), and every message stays within Block Kit's limits.
 */
import type { AlertPayload } from '../../alerts/payload.js';
import { isOpenEnded, UNTIL_FURTHER_NOTICE } from '../../domain/open-ended.js';
import type { Notice } from '../../upstream/schemas.js';
import { mergeCapacityPayloads } from '../capacity.js';
import { nextCycleLine } from '../next-cycle.js';
import { headline, operationSubject, shortPipelineName, title } from '../text.js';
import type { Alert } from '../types.js';
import { alertActions } from './actions.js';
import type { Block } from './blocks.js';
import { blockIds, context, header, LIMITS, section } from './blocks.js';
import { capacityTable } from './capacity.js';
import { mdLine, mdLink, plainLine, safeUrl, slackDate } from './escape.js';
import {
  alertButtons,
  capacityBlocks,
  deadlineBlocks,
  footer,
  noticeBlocks,
  noticeType,
  operationsBlocks,
} from './layouts.js';
import { silenceBlocks, silenceItem } from './silence.js';

/** A Slack message: `text` for notifications, `blocks` for display. */
export interface SlackMessage {
  text: string;
  blocks: Block[];
}

/** The most alerts one Slack message carries: one section each, well within 50 blocks. */
export const MAX_DIGEST = 10;

/** Longest link that goes into a digest section (the section holds 3000 characters). */
const DIGEST_URL_MAX = 1500;

/** How alerts are rendered beyond what they say. */
export interface RenderOptions {
  /**
   * Buttons under the alert (Acknowledge, Mute pipeline, Remind me), for a channel whose
   * clicks the Slack app answers. Off: the message carries only its link buttons.
   */
  interactive?: boolean | undefined;
}

/**
 * The message for 1 to `MAX_DIGEST` alerts. `now` is the send time, from which a
 * reminder's time left is worked out; without it a reminder names its offset.
 */
export function renderSlack(
  alerts: readonly Alert[],
  now?: string,
  options: RenderOptions = {},
): SlackMessage {
  const payloads = mergeCapacityPayloads(alerts.map((a) => a.payload));
  const [only] = payloads;
  const message =
    payloads.length === 1 && only
      ? { text: fallback(only, now), blocks: single(only, now) }
      : digest(payloads, now);
  if (!options.interactive || message.blocks.length >= LIMITS.blocks) return message;
  // The buttons go above the footer, the context line naming the rules.
  const blocks = [...message.blocks];
  blocks.splice(blocks.length - 1, 0, alertActions(alertButtons(payloads, now)));
  return { text: message.text, blocks };
}

/** Ids of the notices a message announces as notices (not reminders), in order. */
export function noticeIds(alerts: readonly Alert[]): number[] {
  const ids = alerts.flatMap((a) =>
    a.payload.kind === 'notice' && a.payload.notice ? [a.payload.notice.id] : [],
  );
  return [...new Set(ids)];
}

/**
 * The message with a context note (mrkdwn, already safe) under the block of each notice
 * in `notes`; notes a previous call added are replaced, so the result depends only on
 * the original and `notes`.
 */
export function markSuperseded(
  message: SlackMessage,
  notes: ReadonlyMap<number, string>,
): SlackMessage {
  const blocks: Block[] = [];
  for (const block of message.blocks) {
    if (block.block_id?.startsWith('superseded-')) continue;
    blocks.push(block);
    const id = /^notice-(\d+)$/.exec(block.block_id ?? '')?.[1];
    const note = id === undefined ? undefined : notes.get(Number(id));
    if (note && blocks.length < LIMITS.blocks - 1) {
      blocks.push(context([note], `superseded-${id}`));
    }
  }
  return { text: message.text, blocks };
}

function fallback(p: AlertPayload, now: string | undefined): string {
  return mdLine(title(p, now), 1000);
}

function single(p: AlertPayload, now: string | undefined): Block[] {
  const n = p.notice;
  if (p.kind === 'capacity' && p.capacity) return capacityBlocks(p, now);
  if (p.kind === 'deadline' && n) return deadlineBlocks(p, n, `deadline-${n.id}`, now);
  if (p.kind === 'notice' && n) return noticeBlocks(p, n, `notice-${n.id}`, now);
  if (p.kind === 'silence') return silenceBlocks(p);
  return operationsBlocks(p);
}

function digest(payloads: readonly AlertPayload[], now: string | undefined): SlackMessage {
  const first = payloads[0];
  const onePipeline =
    first !== undefined && payloads.every((p) => p.pipeline.slug === first.pipeline.slug);
  const name = onePipeline && first ? shortPipelineName(first) : 'pipewatch';
  const ids = blockIds();
  const blocks: Block[] = [header(plainLine(`${name}: ${payloads.length} alerts`, 150))];
  for (const p of payloads) {
    if (blocks.length >= LIMITS.blocks - 1) break;
    const n = p.notice;
    if (p.kind === 'capacity' && p.capacity) {
      blocks.push(section(capacityItem(p, !onePipeline, now)));
    } else if ((p.kind === 'notice' || p.kind === 'deadline') && n) {
      blocks.push(section(alertItem(p, n, !onePipeline, now), ids(`${p.kind}-${n.id}`)));
    } else if (p.kind === 'silence') {
      blocks.push(section(silenceItem(p, !onePipeline)));
    } else {
      blocks.push(section(otherItem(p, !onePipeline)));
    }
  }
  blocks.push(footer(payloads.flatMap((p) => p.rule.split(', '))));
  const lines = payloads.map(
    (p) => `• ${mdLine(onePipeline ? headline(p, now) : title(p, now), 300)}`,
  );
  const text = `${mdLine(`${name}: ${payloads.length} alerts`, 200)}\n${lines.join('\n')}`;
  return { text: text.slice(0, LIMITS.text), blocks };
}

/** One notice or reminder in a digest: linked headline, then facts on one line. */
function alertItem(
  p: AlertPayload,
  n: Notice,
  withPipeline: boolean,
  now: string | undefined,
): string {
  const what = headline(p, now);
  const label = mdLine(withPipeline ? `${shortPipelineName(p)}: ${what}` : what, 300);
  const url = safeUrl(n.url);
  const linked = url && url.length <= DIGEST_URL_MAX ? mdLink(url, label) : label;
  const facts: string[] = [];
  if (p.kind === 'deadline' && p.deadline) facts.push(`due ${slackDate(p.deadline.at, p.zone)}`);
  if (p.kind === 'deadline') facts.push(mdLine(noticeType(n), 100));
  if (n.category.trim()) facts.push(mdLine(n.category, 100));
  if (n.status.trim()) facts.push(mdLine(n.status, 100));
  if (n.posted_at) facts.push(`posted ${slackDate(n.posted_at, p.zone)}`);
  if (p.kind === 'notice') {
    if (n.effective_at) facts.push(`effective ${slackDate(n.effective_at, p.zone)}`);
    if (isOpenEnded(n)) facts.push(UNTIL_FURTHER_NOTICE);
    else if (n.end_at) facts.push(`ends ${slackDate(n.end_at, p.zone)}`);
    if (n.response_at) facts.push(`response due ${slackDate(n.response_at, p.zone)}`);
  }
  const names = p.changes ? p.changes.map((c) => c.label.toLowerCase()) : (p.changed ?? []);
  if (p.state === 'updated' && names.length > 0)
    facts.push(`changed: ${mdLine(names.join(', '), 200)}`);
  if (p.supersedes)
    facts.push(`supersedes ${mdLine(p.supersedes.identifier || `#${p.supersedes.id}`, 60)}`);
  return `*${linked}*\n${facts.join(' · ')}${nextLine(p, now)}`;
}

/** Any other alert in a digest (operations): its headline, and when it was seen. */
function otherItem(p: AlertPayload, withPipeline: boolean): string {
  const what = headline(p);
  const label = mdLine(withPipeline ? `${shortPipelineName(p)}: ${what}` : what, 500);
  const o = p.operations;
  const where =
    o?.event === 'schema-drift'
      ? `table ${mdLine(o.table, 100)}`
      : o?.event === 'channel-gone'
        ? `channel ${mdLine(o.channel, 100)}`
        : o?.event === 'unknown-pipeline'
          ? `rule ${mdLine(o.rule, 100)}`
          : o && mdLine(operationSubject(p) ?? o.event, 100);
  const facts = o && where ? [where, `seen ${slackDate(o.seen_at, p.zone)}`] : [];
  return facts.length > 0 ? `*${label}*\n${facts.join(' · ')}` : `*${label}*`;
}

/**
 * A (merged) capacity alert in a digest: its headline, the next nomination cycle at
 * `now`, then one table.
 */
function capacityItem(p: AlertPayload, withPipeline: boolean, now: string | undefined): string {
  const what = headline(p);
  const heading = mdLine(withPipeline ? `${shortPipelineName(p)}: ${what}` : what, 300);
  const lead = `*${heading}*${nextLine(p, now)}`;
  const locations = p.capacity?.locations ?? [];
  return `${lead}\n${capacityTable(locations, p.state, LIMITS.section - lead.length - 10)}`;
}

/** A digest item's next nomination cycle at `now`, on a line of its own; else nothing. */
function nextLine(p: AlertPayload, now: string | undefined): string {
  const line = nextCycleLine(p, now);
  return line ? `\n${mdLine(line, 300)}` : '';
}
