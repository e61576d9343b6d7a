/**
 * Block Kit building blocks for pipewatch's Slack messages, each within Slack's limits.
 * Text given to these builders is already escaped (see `escape.ts`); mrkdwn objects are
 * `verbatim`, so Slack links and mentions nothing on its own: only the links and date
 * tokens pipewatch wrote are live.
 */
import type { types } from '@slack/bolt';
import { clipEscaped } from './escape.js';

export type Block = types.KnownBlock;

/** Slack's Block Kit and message limits. */
export const LIMITS = {
  blocks: 50,
  header: 150,
  section: 3000,
  fields: 10,
  field: 2000,
  context: 10,
  buttonText: 75,
  url: 3000,
  blockId: 255,
  text: 40_000,
} as const;

/** A mrkdwn text object: no automatic linking or mention parsing. */
export function mrkdwn(text: string): types.MrkdwnElement {
  return { type: 'mrkdwn', text, verbatim: true };
}

/** A header: plain text, one line, at most 150 characters. */
export function header(text: string, blockId?: string): types.HeaderBlock {
  return {
    type: 'header',
    ...(blockId ? { block_id: blockId } : {}),
    text: { type: 'plain_text', text: clipEscaped(text, LIMITS.header) || ' ' },
  };
}

/** A mrkdwn section, clipped to 3000 characters. */
export function section(text: string, blockId?: string): types.SectionBlock {
  return {
    type: 'section',
    ...(blockId ? { block_id: blockId } : {}),
    text: mrkdwn(clipEscaped(text, LIMITS.section) || ' '),
  };
}

/** A plain-text section (the notice body), clipped to 3000 characters. */
export function plainSection(text: string): types.SectionBlock {
  return {
    type: 'section',
    text: { type: 'plain_text', text: clipEscaped(text, LIMITS.section) || ' ', emoji: false },
  };
}

/** Label and mrkdwn value pairs as section fields: at most 10, each at most 2000 characters. */
export function fields(pairs: ReadonlyArray<[label: string, value: string]>): types.SectionBlock {
  return {
    type: 'section',
    fields: pairs
      .slice(0, LIMITS.fields)
      .map(([label, value]) => mrkdwn(clipEscaped(`*${label}*\n${value}`, LIMITS.field))),
  };
}

/** A context line (small grey text); at most 10 elements. */
export function context(texts: readonly string[], blockId?: string): types.ContextBlock {
  return {
    type: 'context',
    ...(blockId ? { block_id: blockId } : {}),
    elements: texts.slice(0, LIMITS.context).map((t) => mrkdwn(clipEscaped(t, LIMITS.section))),
  };
}

/** A row with one link button; `url` must come from `safeUrl`. */
export function linkButton(label: string, url: string, actionId: string): types.ActionsBlock {
  return {
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: actionId,
        text: { type: 'plain_text', text: clipEscaped(label, LIMITS.buttonText) },
        url,
      },
    ],
  };
}

export const divider: types.DividerBlock = { type: 'divider' };

/**
 * Block ids unique within a message (Slack rejects duplicates): the first block for
 * `notice-101` gets that id, a second one in the same message `notice-101-2`.
 */
export function blockIds(): (key: string) => string {
  const seen = new Map<string, number>();
  return (key) => {
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return (count === 1 ? key : `${key}-${count}`).slice(0, LIMITS.blockId);
  };
}
