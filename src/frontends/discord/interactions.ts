/**
 * What the Discord app does with each verified interaction, through the chat core
 * (`ChatService`) only, answering with the body of Discord's interaction response: the
 * `/pipewatch` command (its reply answers at once, its follow-up goes later through the
 * interaction's webhook), autocompletion of pipelines and locations, and clicks on
 * pipewatch's buttons and menus (an acknowledged alert is edited for everyone, anything
 * else answered only to whoever clicked). Whatever fails is logged in one line and
 * answered with a short private note: never a stack trace.
 */

import {
  acknowledgedUpdate,
  decodeComponent,
  userMention,
} from '../../channels/discord/actions.js';
import { oneLine } from '../../channels/text.js';
import type { ChatAnswer, ChatCaller, ChatService, SuggestionField } from '../../chat/types.js';
import type { Logger } from '../../lib/logger.js';
import { COMMAND_NAME, commandWords, subcommandOptions } from './command-words.js';
import {
  type AutocompleteInteraction,
  type CommandInteraction,
  type ComponentInteraction,
  INTERACTION,
  type Interaction,
  type InteractionBase,
} from './interaction-schema.js';
import { privateMarkdown, privateNote, type ReplyData, replyData } from './reply-messages.js';

/** Discord's interaction response types. */
export const RESPONSE = {
  pong: 1,
  message: 4,
  deferredUpdate: 6,
  updateMessage: 7,
  choices: 8,
} as const;

/** Discord's permission bits that let a member manage a channel. */
const ADMINISTRATOR = 1n << 3n;
const MANAGE_CHANNELS = 1n << 4n;

/** Most choices an autocomplete answer may offer. */
const CHOICES_MAX = 25;

const INVALID_BUTTON = 'This button is no longer valid.';
/** What the caller is told when something failed: the reason is in the log only. */
export const FAILED = 'pipewatch could not do that just now; the error is in its log.';

/** What answers an interaction: the response body, and a command's follow-up to post after it. */
export interface InteractionAnswer {
  response: { type: number; data?: unknown };
  followUp?: ChatAnswer['followUp'];
}

/** A name or an id as given, an empty one as none. */
const text = (v: string | null | undefined): string | undefined =>
  typeof v === 'string' && v !== '' ? v : undefined;

function messageOf(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error)).slice(0, 300);
}

/** Whether a permission bitfield (a decimal string) lets its member manage the channel. */
export function canManage(permissions: unknown): boolean {
  if (typeof permissions !== 'string' || !/^\d{1,40}$/.test(permissions)) return false;
  return (BigInt(permissions) & (ADMINISTRATOR | MANAGE_CHANNELS)) !== 0n;
}

/**
 * Who the interaction comes from, and where: the member's user in a server, the user in
 * a DM; a DM (no server, or Discord's DM contexts) is direct. `undefined` without a user
 * or a channel.
 */
export function callerOf(interaction: InteractionBase): ChatCaller | undefined {
  const member = interaction.member;
  const user = member?.user ?? interaction.user;
  const id = text(user?.id);
  const channel = text(interaction.channel_id) ?? text(interaction.channel?.id);
  if (!id || !channel) return undefined;
  const context = interaction.context;
  const guild = text(interaction.guild_id);
  const direct = !guild || context === 1 || context === 2;
  return {
    platform: 'discord',
    channel,
    channelName: text(interaction.channel?.name),
    workspace: direct ? undefined : guild,
    user: id,
    userName: text(member?.nick) ?? text(user?.global_name) ?? text(user?.username),
    canManageChannel: canManage(member?.permissions),
    direct,
  };
}

function message(data: ReplyData): InteractionAnswer {
  return { response: { type: RESPONSE.message, data } };
}

/** Answers interactions through one chat core. */
export class InteractionHandler {
  constructor(
    private readonly chat: ChatService,
    private readonly log: Logger,
  ) {}

  /** The answer to a verified interaction that is not a PING; never throws. */
  async answer(read: Interaction): Promise<InteractionAnswer> {
    try {
      switch (read.kind) {
        case 'command':
          return await this.command(read.interaction);
        case 'autocomplete':
          return await this.autocomplete(read.interaction);
        case 'component':
          return await this.component(read.interaction);
        case 'other':
          return message(
            privateNote(
              `pipewatch does not take interactions of type ${String(read.interaction.type)}.`,
            ),
          );
      }
    } catch (error) {
      return this.failed(read.interaction, error);
    }
  }

  /** What the caller is told when answering failed; the reason goes to the log. */
  failed(interaction: InteractionBase, error: unknown): InteractionAnswer {
    const user = callerOf(interaction)?.user;
    this.log.error(
      { user, type: interaction.type },
      `a Discord interaction failed: ${messageOf(error)}`,
    );
    if (interaction.type === INTERACTION.autocomplete)
      return { response: { type: RESPONSE.choices, data: { choices: [] } } };
    return message(privateNote(FAILED));
  }

  private async command(interaction: CommandInteraction): Promise<InteractionAnswer> {
    const caller = callerOf(interaction);
    if (!caller) return message(privateNote('pipewatch could not tell who typed this, or where.'));
    const words = commandWords(interaction.data);
    if ('reply' in words) return message(replyData(words.reply));
    let answer: ChatAnswer;
    try {
      answer = await this.chat.command(caller, words.text);
    } catch (error) {
      this.log.error({ user: caller.user }, `/${COMMAND_NAME} failed: ${messageOf(error)}`);
      return message(privateNote(FAILED));
    }
    return { ...message(replyData(answer.reply)), followUp: answer.followUp };
  }

  private async autocomplete(interaction: AutocompleteInteraction): Promise<InteractionAnswer> {
    const given = subcommandOptions(interaction.data.options);
    const focused = given.find((o) => o.focused === true);
    const value = (name: string) => {
      const v = given.find((o) => o.name === name)?.value;
      return typeof v === 'string' ? v : undefined;
    };
    let field: SuggestionField | undefined;
    if (focused?.name === 'pipelines' || focused?.name === 'pipeline') field = { kind: 'pipeline' };
    else if (focused?.name === 'location')
      field = { kind: 'location', pipeline: value('pipeline') ?? value('pipelines') };
    const typed = typeof focused?.value === 'string' ? focused.value : '';
    const choices = field
      ? (await this.chat.suggest(field, typed))
          .slice(0, CHOICES_MAX)
          .map((s) => ({ name: s.label, value: s.value }))
      : [];
    return { response: { type: RESPONSE.choices, data: { choices } } };
  }

  private async component(interaction: ComponentInteraction): Promise<InteractionAnswer> {
    const { data, message: clicked } = interaction;
    const caller = callerOf(interaction);
    const action = decodeComponent(data.custom_id, data.values, clicked.id);
    if (!action || !caller) {
      const customId = oneLine(data.custom_id).slice(0, 100);
      this.log.info({ user: caller?.user, customId }, 'a click on a component no longer valid');
      return message(privateNote(INVALID_BUTTON));
    }
    const result = await this.chat.action(caller, action);
    const ack = result.acknowledged;
    if (action.kind === 'ack' && ack) {
      if (!ack.already) {
        return {
          response: {
            type: RESPONSE.updateMessage,
            data: acknowledgedUpdate(clicked, ack.by, ack.at),
          },
        };
      }
      const at = Math.floor(Date.parse(ack.at) / 1000);
      return message(
        privateMarkdown(`Already acknowledged by ${userMention(ack.by)} <t:${at}:f>.`),
      );
    }
    if (result.reply) return message(replyData({ ...result.reply, private: true }));
    return { response: { type: RESPONSE.deferredUpdate } };
  }
}
