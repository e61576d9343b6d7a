/**
 * The interactions Discord sends an application's Interactions Endpoint URL, field for
 * field as Discord's documented payloads have them: a `/pipewatch` chat-input command
 * (its subcommand and options) typed in a server channel by a member (with that
 * member's permissions in the channel, a decimal string) or in a DM with the bot by a
 * user; the autocompletion of one of its options; and a click on a button or a choice
 * in a select menu of a message, the message coming whole (embeds and components).
 * Each interaction gets a fresh snowflake id and a fresh token.
 */
import { randomBytes } from 'node:crypto';
import { FAKE_CHANNEL, FAKE_USER } from './discord.js';

/** The server the channels are in. */
export const GUILD_ID = '1300000000000000001';
/** The id of the registered `/pipewatch` command. */
export const COMMAND_ID = '1310000000000000001';

/** A Discord user, as an interaction carries one. */
export interface DiscordUser {
  id: string;
  username: string;
  global_name: string | null;
}

/** The people of the server; who may manage a channel depends on `PERMISSIONS`, not on them. */
export const USERS = {
  alice: { id: '1400000000000000001', username: 'alice', global_name: 'Alice' },
  bob: { id: '1400000000000000002', username: 'bob', global_name: 'Bob' },
  carol: { id: '1400000000000000003', username: 'carol', global_name: null },
} satisfies Record<string, DiscordUser>;

const bit = (n: number) => 1n << BigInt(n);
/** What an ordinary member may do in a channel: view, send, embed, react, history, commands. */
const MEMBER = bit(6) | bit(10) | bit(11) | bit(14) | bit(15) | bit(16) | bit(31);

/** Members' permissions in a channel, as Discord sends them: decimal strings. */
export const PERMISSIONS = {
  member: String(MEMBER),
  /** A member who may manage the channel (Manage Channels, Manage Messages). */
  manager: String(MEMBER | bit(4) | bit(13)),
  /** A member with Administrator alone. */
  administrator: String(MEMBER | bit(3)),
} as const;

/** A channel of the server. */
export interface DiscordChannel {
  id: string;
  name: string;
}

/** `#gas`, the channel the Discord fake knows. */
export const GAS: DiscordChannel = { id: FAKE_CHANNEL, name: 'gas' };

/** Where an interaction happens and who makes it. */
export interface Where {
  user?: DiscordUser;
  /** In a server channel (default `#gas`), unless `dm`. */
  channel?: DiscordChannel;
  /** The member's permissions in the channel (default `PERMISSIONS.member`). */
  permissions?: string;
  /** In the DM between the user and the bot. */
  dm?: boolean;
}

/** An option value as a test gives it: the value, or the value being typed (autocomplete). */
export type OptionInput = string | number | { focused: string };

/** Discord's option types for string and integer values, and a subcommand. */
const STRING = 3;
const INTEGER = 4;
const SUB_COMMAND = 1;

const DISCORD_EPOCH = 1_420_070_400_000n;
let sequence = 0n;

/** A snowflake for `at`, unique within this process. */
export function snowflake(at: Date): string {
  sequence = (sequence + 1n) & 0xfffn;
  return (((BigInt(at.getTime()) - DISCORD_EPOCH) << 22n) | (1n << 17n) | sequence).toString();
}

/** An interaction token, shaped as Discord's are. */
function interactionToken(id: string): string {
  const raw = `interaction:${id}:${randomBytes(48).toString('base64url')}`;
  return Buffer.from(raw).toString('base64url');
}

/** The DM channel of a user with the bot. */
export function dmChannelOf(user: DiscordUser): string {
  return `15${user.id.slice(2)}`;
}

/** What every interaction has, in a server channel or a DM. */
export function interactionBase(applicationId: string, at: Date, type: number, where: Where) {
  const user = where.user ?? USERS.alice;
  const id = snowflake(at);
  const common = {
    app_permissions: String(MEMBER | bit(13)),
    application_id: applicationId,
    attachment_size_limit: 10_485_760,
    entitlement_sku_ids: [],
    entitlements: [],
    id,
    locale: 'en-US',
    token: interactionToken(id),
    type,
    version: 1,
  };
  if (where.dm) {
    const channel = dmChannelOf(user);
    return {
      ...common,
      authorizing_integration_owners: { '0': GUILD_ID },
      channel: { flags: 0, id: channel, last_message_id: null, recipients: [user], type: 1 },
      channel_id: channel,
      context: 1,
      user: { ...user, avatar: null, discriminator: '0', public_flags: 0 },
    };
  }
  const channel = where.channel ?? GAS;
  const permissions = where.permissions ?? PERMISSIONS.member;
  return {
    ...common,
    authorizing_integration_owners: { '0': GUILD_ID },
    channel: {
      flags: 0,
      guild_id: GUILD_ID,
      id: channel.id,
      last_message_id: null,
      name: channel.name,
      nsfw: false,
      parent_id: null,
      permissions,
      position: 0,
      rate_limit_per_user: 0,
      topic: null,
      type: 0,
    },
    channel_id: channel.id,
    context: 0,
    guild: { features: [], id: GUILD_ID, locale: 'en-US' },
    guild_id: GUILD_ID,
    guild_locale: 'en-US',
    member: {
      avatar: null,
      banner: null,
      communication_disabled_until: null,
      deaf: false,
      flags: 0,
      joined_at: '2025-03-01T12:00:00.000000+00:00',
      mute: false,
      nick: null,
      pending: false,
      permissions,
      premium_since: null,
      roles: [],
      unusual_dm_activity_until: null,
      user: { ...user, avatar: null, discriminator: '0', public_flags: 0 },
    },
  };
}

/** `data` of a `/pipewatch <subcommand>` with these options, in this order. */
export function commandData(subcommand: string, options: Record<string, OptionInput> = {}) {
  return {
    id: COMMAND_ID,
    name: 'pipewatch',
    type: 1,
    options: [
      {
        name: subcommand,
        type: SUB_COMMAND,
        options: Object.entries(options).map(([name, input]) => {
          if (typeof input === 'object') {
            return { name, type: STRING, value: input.focused, focused: true };
          }
          return { name, type: typeof input === 'number' ? INTEGER : STRING, value: input };
        }),
      },
    ],
  };
}

/** A component of a message, as Discord sends it back: a row of buttons or a menu. */
export type MessageComponents = unknown[];

/** A message the bot posted, as a click on one of its components carries it. */
export function botMessage(
  applicationId: string,
  input: {
    id: string;
    channel: string;
    content?: string;
    embeds?: unknown[];
    components?: MessageComponents;
    at: Date;
  },
) {
  return {
    application_id: applicationId,
    attachments: [],
    author: { ...FAKE_USER, avatar: null, global_name: null, public_flags: 0 },
    channel_id: input.channel,
    components: input.components ?? [],
    content: input.content ?? '',
    edited_timestamp: null,
    embeds: input.embeds ?? [],
    flags: 0,
    id: input.id,
    mention_everyone: false,
    mention_roles: [],
    mentions: [],
    pinned: false,
    timestamp: input.at.toISOString().replace('Z', '000+00:00'),
    tts: false,
    type: 0,
  };
}

/** `data` of a click: a button's custom id, or a menu's and the values chosen. */
export function componentData(customId: string, values?: string[]) {
  return values === undefined
    ? { component_type: 2, custom_id: customId }
    : { component_type: 3, custom_id: customId, values };
}
