/**
 * The components (buttons and menus) pipewatch puts on Discord messages, and what a click
 * on one asks for: the one place where custom ids are written and read. A custom id
 * carries everything its action needs (the pipeline's slug, the notice's id, a list
 * item's id), so a button on a message sent before a restart still works; one that does
 * not read back into a `ChatAction` is refused, never guessed at.
 */
import {
  listActionOf,
  listActionWords,
  MUTE_HOURS,
  muteForMs,
  slugPattern,
} from '../../chat/action-words.js';
import type { ChatAction } from '../../chat/types.js';

/** Every pipewatch custom id starts so. */
export const CUSTOM_ID_PREFIX = 'pipewatch:v1:';

/** Discord's component types and button styles used here. */
export const COMPONENT = { row: 1, button: 2, stringSelect: 3 } as const;
export const BUTTON_STYLE = { primary: 1, secondary: 2, success: 3, danger: 4 } as const;

/** Discord's limit on a custom id. */
const CUSTOM_ID_MAX = 100;
/** A slug the Mute menu's custom id has room for. */
const SLUG = slugPattern(80);
const SNOWFLAKE = /^\d{1,20}$/;

export interface ButtonComponent {
  type: typeof COMPONENT.button;
  style: number;
  label: string;
  custom_id: string;
}

export interface SelectComponent {
  type: typeof COMPONENT.stringSelect;
  custom_id: string;
  placeholder: string;
  options: Array<{ label: string; value: string }>;
}

export interface ActionRow {
  type: typeof COMPONENT.row;
  components: Array<ButtonComponent | SelectComponent>;
}

/**
 * The custom id of a button's action. An `ack` carries no message id (the click says
 * which message it was on); a `mute` is the menu's, its hours coming as the chosen value.
 */
export function encodeCustomId(action: ChatAction): string {
  switch (action.kind) {
    case 'ack':
      return `${CUSTOM_ID_PREFIX}ack`;
    case 'mute':
      return `${CUSTOM_ID_PREFIX}mute:${action.pipeline}`;
    case 'remind':
    case 'remove':
      return `${CUSTOM_ID_PREFIX}${action.kind}:${listActionWords(action)}`;
  }
}

/**
 * What a click asks for, from its custom id, the values chosen in a menu, and the id of
 * the message it was on (for `ack`); `undefined` when they do not read as one action of
 * a kind pipewatch knows.
 */
export function decodeComponent(
  customId: unknown,
  values: unknown,
  messageId: unknown,
): ChatAction | undefined {
  if (typeof customId !== 'string' || !customId.startsWith(CUSTOM_ID_PREFIX)) return undefined;
  if (customId.length > CUSTOM_ID_MAX) return undefined;
  const [kind, ...rest] = customId.slice(CUSTOM_ID_PREFIX.length).split(':');
  if (kind === 'ack' && rest.length === 0) {
    return typeof messageId === 'string' && SNOWFLAKE.test(messageId)
      ? { kind: 'ack', message: messageId }
      : undefined;
  }
  if (kind === 'mute' && rest.length === 1 && SLUG.test(rest[0])) {
    const chosen = Array.isArray(values) && values.length === 1 ? values[0] : undefined;
    const forMs = typeof chosen === 'string' ? muteForMs(chosen) : undefined;
    return forMs === undefined ? undefined : { kind: 'mute', pipeline: rest[0], forMs };
  }
  return listActionOf(kind, rest);
}

/** What components an alert message carries. */
export interface AlertButtons {
  /** The pipeline the Mute menu mutes; none: no menu. */
  pipeline?: string | undefined;
  /** The notice Remind me is for; none: no button. */
  remindNotice?: number | undefined;
}

function button(label: string, action: ChatAction, style: number): ButtonComponent {
  return { type: COMPONENT.button, style, label, custom_id: encodeCustomId(action) };
}

/**
 * The rows of an alert in a channel: Acknowledge and Remind me as buttons, then the Mute
 * menu on a row of its own (Discord puts a menu alone on its row).
 */
export function alertComponents(buttons: AlertButtons): ActionRow[] {
  const first: ButtonComponent[] = [
    button('Acknowledge', { kind: 'ack', message: '' }, BUTTON_STYLE.success),
  ];
  if (buttons.remindNotice !== undefined) {
    first.push(
      button(
        'Remind me',
        { kind: 'remind', noticeId: buttons.remindNotice },
        BUTTON_STYLE.secondary,
      ),
    );
  }
  const rows: ActionRow[] = [{ type: COMPONENT.row, components: first }];
  const pipeline = buttons.pipeline;
  if (pipeline !== undefined && SLUG.test(pipeline)) {
    rows.push({
      type: COMPONENT.row,
      components: [
        {
          type: COMPONENT.stringSelect,
          custom_id: encodeCustomId({ kind: 'mute', pipeline, forMs: 0 }),
          placeholder: `Mute ${pipeline}`,
          options: MUTE_HOURS.map((h) => ({ label: `for ${h} h`, value: String(h) })),
        },
      ],
    });
  }
  return rows;
}

/** A Remove button for an item of a list in a reply, on a row of its own. */
export function removeButton(action: ChatAction, label = 'Remove'): ButtonComponent {
  return button(label, action, BUTTON_STYLE.danger);
}

/** `<@123…>` for a Discord user id; anything else as inert text. */
export function userMention(user: string): string {
  return SNOWFLAKE.test(user) ? `<@${user}>` : user.replace(/[^\w .-]/g, '').slice(0, 100);
}

/** A row of a message as a click brings it back: whoever's components, pipewatch's among them. */
export interface MessageRow {
  type: number;
  components?: ReadonlyArray<{ type: number; custom_id?: string | undefined }> | undefined;
}

/** `✅ Acknowledged by <@id> <t:…:f>`: the time in each reader's own zone. */
export function acknowledgedLine(by: string, at: string): string {
  return `✅ Acknowledged by ${userMention(by)} <t:${Math.floor(Date.parse(at) / 1000)}:f>`;
}

/**
 * The edit of an acknowledged message (the body of an `UPDATE_MESSAGE` answer): its
 * embeds as they were, pipewatch's components gone, and a line saying who acknowledged
 * it and when. Pings nobody.
 */
export function acknowledgedUpdate(
  message: {
    embeds?: readonly unknown[] | undefined;
    components?: readonly MessageRow[] | undefined;
  },
  by: string,
  at: string,
): { content: string; embeds: unknown[]; components: unknown[]; allowed_mentions: { parse: [] } } {
  const kept = (message.components ?? []).filter(
    (row) => !(row.components ?? []).some((c) => c.custom_id?.startsWith(CUSTOM_ID_PREFIX)),
  );
  return {
    content: acknowledgedLine(by, at),
    embeds: [...(message.embeds ?? [])],
    components: kept,
    allowed_mentions: { parse: [] },
  };
}
