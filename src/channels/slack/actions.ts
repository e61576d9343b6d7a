/**
 * The buttons pipewatch puts on Slack messages and views, and what a click on one asks
 * for: the one place where action ids and values are written and read. A value carries
 * everything its action needs (the pipeline's slug, the notice's id, a list item's id),
 * so a button on a message sent before a restart still works; a value that does not read
 * back into a `ChatAction` is refused, never guessed at.
 */
import type { types } from '@slack/bolt';
import {
  HOUR_MS,
  listActionOf,
  listActionWords,
  MUTE_HOURS,
  muteForMs,
  slugPattern,
} from '../../chat/action-words.js';
import type { ChatAction } from '../../chat/types.js';
import type { Block } from './blocks.js';
import { context, LIMITS } from './blocks.js';
import { mdLine, slackDate } from './escape.js';

/** Every pipewatch action id starts so; Bolt's listener matches them with `ACTION_ID_PATTERN`. */
export const ACTION_PREFIX = 'pipewatch_';

/** The action id of each kind of action. */
export const ACTION_IDS = {
  ack: `${ACTION_PREFIX}ack`,
  mute: `${ACTION_PREFIX}mute`,
  remind: `${ACTION_PREFIX}remind`,
  remove: `${ACTION_PREFIX}remove`,
} as const satisfies Record<ChatAction['kind'], string>;

/** Every action id pipewatch ever wrote, the ones it no longer reads included. */
export const ACTION_ID_PATTERN = /^pipewatch_/;

/** The block that holds an alert's buttons; acknowledging removes it. */
export const ACTIONS_BLOCK_ID = 'pipewatch-actions';

/** The context line that says who acknowledged a message. */
export const ACKNOWLEDGED_BLOCK_ID = 'pipewatch-acknowledged';

/** Slack's limit on an option's value (a button's is 2000). */
const OPTION_VALUE_MAX = 150;

const VERSION = 'v1';
const SLUG = slugPattern(100);

/** A button's or option's action id and value. */
export interface EncodedAction {
  action_id: string;
  value: string;
}

/**
 * The action id and value of an action. An `ack` carries no message id: the click says
 * which message it was on. A `mute` must last whole hours.
 */
export function encodeAction(action: ChatAction): EncodedAction {
  const action_id = ACTION_IDS[action.kind];
  switch (action.kind) {
    case 'ack':
      return { action_id, value: `${VERSION}:ack` };
    case 'mute':
      return {
        action_id,
        value: `${VERSION}:mute:${action.pipeline}:${Math.round(action.forMs / HOUR_MS)}h`,
      };
    case 'remind':
    case 'remove':
      return { action_id, value: `${VERSION}:${action.kind}:${listActionWords(action)}` };
  }
}

/**
 * What a click asks for, from its action id, its value (a button's `value` or a menu's
 * selected option) and the message it was on (`ts`, for `ack`); `undefined` when they do
 * not read as one action of a kind pipewatch knows.
 */
export function decodeAction(
  actionId: string,
  value: string | undefined,
  messageTs?: string | undefined,
): ChatAction | undefined {
  if (typeof value !== 'string') return undefined;
  const [version, kind, ...rest] = value.split(':');
  if (
    version !== VERSION ||
    kind === undefined ||
    ACTION_IDS[kind as ChatAction['kind']] !== actionId
  )
    return undefined;
  if (kind === 'ack' && rest.length === 0) {
    return messageTs && /^\d+\.\d+$/.test(messageTs)
      ? { kind: 'ack', message: messageTs }
      : undefined;
  }
  if (kind === 'mute' && rest.length === 2) {
    const [pipeline = '', hours = ''] = rest;
    const forMs = hours.endsWith('h') ? muteForMs(hours.slice(0, -1)) : undefined;
    if (!SLUG.test(pipeline) || forMs === undefined) return undefined;
    return { kind: 'mute', pipeline, forMs };
  }
  return listActionOf(kind, rest);
}

/** What buttons an alert message carries. */
export interface AlertButtons {
  /** The pipeline the Mute menu mutes; none: no menu. */
  pipeline?: string | undefined;
  /** The notice Remind me is for; none: no button. */
  remindNotice?: number | undefined;
}

function button(label: string, action: ChatAction, primary = false): types.Button {
  return {
    type: 'button',
    text: { type: 'plain_text', text: label, emoji: true },
    ...encodeAction(action),
    ...(primary ? { style: 'primary' as const } : {}),
  };
}

/** The Mute menu, when the slug fits in an option's value. */
function muteMenu(pipeline: string): types.StaticSelect | undefined {
  if (!SLUG.test(pipeline)) return undefined;
  const options = MUTE_HOURS.map((h) => {
    const { value } = encodeAction({ kind: 'mute', pipeline, forMs: h * HOUR_MS });
    return { text: { type: 'plain_text' as const, text: `for ${h} h` }, value };
  });
  if (options.some((o) => o.value.length > OPTION_VALUE_MAX)) return undefined;
  return {
    type: 'static_select',
    action_id: ACTION_IDS.mute,
    placeholder: { type: 'plain_text', text: 'Mute pipeline' },
    options,
  };
}

/** The row of buttons of an alert in a channel: Acknowledge, Mute pipeline, Remind me. */
export function alertActions(buttons: AlertButtons): types.ActionsBlock {
  const elements: types.ActionsBlockElement[] = [
    button('Acknowledge', { kind: 'ack', message: '' }, true),
  ];
  const mute = buttons.pipeline === undefined ? undefined : muteMenu(buttons.pipeline);
  if (mute) elements.push(mute);
  if (buttons.remindNotice !== undefined) {
    elements.push(button('Remind me', { kind: 'remind', noticeId: buttons.remindNotice }));
  }
  return { type: 'actions', block_id: ACTIONS_BLOCK_ID, elements };
}

/** A Remove button for an item of a list in a reply or on the home view. */
export function removeButton(action: ChatAction): types.Button {
  return button('Remove', action);
}

/** `<@U0ALICE>` for a Slack user id; anything else as inert text. */
export function userMention(user: string): string {
  return /^[UW][A-Z0-9]{2,20}$/.test(user) ? `<@${user}>` : mdLine(user, 100);
}

/** `Acknowledged by <@U0ALICE> at <date>`, the date in each reader's own zone. */
export function acknowledgedLine(by: string, at: string): string {
  return `:white_check_mark: Acknowledged by ${userMention(by)} at ${slackDate(at, 'UTC')}`;
}

/**
 * The blocks of an acknowledged message: its buttons gone, and in their place (or at the
 * end) a line saying who acknowledged it and when. Blocks come as Slack returned them.
 */
export function acknowledgedBlocks(blocks: readonly unknown[], by: string, at: string): Block[] {
  const line = context([acknowledgedLine(by, at)], ACKNOWLEDGED_BLOCK_ID);
  const out: Block[] = [];
  let placed = false;
  for (const block of blocks as Block[]) {
    if (block.block_id === ACKNOWLEDGED_BLOCK_ID) continue;
    if (block.block_id === ACTIONS_BLOCK_ID) {
      if (!placed) out.push(line);
      placed = true;
      continue;
    }
    out.push(block);
  }
  if (!placed && out.length < LIMITS.blocks) out.push(line);
  return out;
}
