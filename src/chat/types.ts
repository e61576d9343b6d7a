/**
 * The words of chat, shared by every platform's front end: who typed a command and
 * where, what pipewatch answers (a platform-neutral reply each front end renders in its
 * own blocks), and what a button on an alert or on the home view asks for. The chat
 * core (`chat/`) decides; `channels/<platform>/` receives, renders and answers.
 */
import type { UtcIso } from '../lib/time.js';
import type { ChatSuggestion, SuggestionField } from './suggest.js';

export type ChatPlatform = 'slack' | 'discord';

/** Who asked, and where. */
export interface ChatCaller {
  platform: ChatPlatform;
  /** The channel the command was typed in or the button clicked in (`C0GAS`); a DM channel too. */
  channel: string;
  /** The channel's name when the platform says it (`gas`), for labels. */
  channelName?: string | undefined;
  /**
   * The Slack workspace (team id, `T0GAS`) or Discord server (guild id) it happens in;
   * undefined in a Discord direct message. What the limits per workspace count by.
   */
  workspace?: string | undefined;
  /** The user's id on the platform (`U0ALICE`). */
  user: string;
  /** The user's display name when the platform says it. */
  userName?: string | undefined;
  /** Discord: whether the member may manage this channel. Slack: undefined. */
  canManageChannel?: boolean | undefined;
  /** Whether the channel is a direct message with the bot. */
  direct?: boolean | undefined;
  /**
   * The channels the user is in, as the platform says, when the click comes from the home
   * view: a Remove there acts on those channels' subscriptions and silences.
   */
  memberOf?: readonly string[] | undefined;
}

/** One item of a list in a reply, with its id and an optional remove button. */
export interface ChatReplyItem {
  /** `12`, shown as `#12`. */
  id?: number | undefined;
  text: string;
  /** A button that removes the item. */
  remove?: ChatAction | undefined;
}

/** A part of a reply. Text is plain: each front end escapes it for its platform. */
export type ChatReplySection =
  | { kind: 'text'; text: string }
  | { kind: 'list'; title: string; items: ChatReplyItem[]; empty?: string | undefined }
  /** Fixed-width text: usage lines, a rule as YAML. */
  | { kind: 'code'; text: string };

/** What pipewatch answers. */
export interface ChatReply {
  /** Only the caller sees it (ephemeral); otherwise the whole channel does. */
  private: boolean;
  /** The answer in one line: the notification text and the fallback. */
  text: string;
  sections: ChatReplySection[];
}

/** A command's answer: what is said at once, and what follows when the slower work is done. */
export interface ChatAnswer {
  reply: ChatReply;
  /** Sent through the platform's follow-up (Slack `response_url`, Discord webhook). */
  followUp?: Promise<ChatReply | undefined> | undefined;
}

/** What a button asks for. */
export type ChatAction =
  /** Acknowledge an alert message (`message`: the platform's message id, Slack's `ts`). */
  | { kind: 'ack'; message: string }
  /** Mute a pipeline in this channel for a while. */
  | { kind: 'mute'; pipeline: string; forMs: number }
  /** A DM reminder before this notice's deadline, to whoever clicked. */
  | { kind: 'remind'; noticeId: number }
  /** Remove a subscription, a silence, or one of the caller's reminders. */
  | { kind: 'remove'; what: 'subscription' | 'silence'; id: number };

/** The answer to a button. */
export interface ChatActionResult {
  /** Said to whoever clicked, only to them. */
  reply?: ChatReply | undefined;
  /** For `ack`: who acknowledged the message and when (the first click; later ones see it). */
  acknowledged?: { by: string; at: UtcIso; already: boolean } | undefined;
}

/** The chat core as a front end sees it. */
export interface ChatService {
  /** A `/pipewatch …` command (the words after `/pipewatch`). Answers within a second. */
  command(caller: ChatCaller, text: string): Promise<ChatAnswer>;
  /** A button on an alert, a reply or the home view. */
  action(caller: ChatCaller, action: ChatAction): Promise<ChatActionResult>;
  /** The user's home: their reminders and silences, and the subscriptions of `channels`. */
  home(platform: ChatPlatform, user: string, channels: readonly string[]): Promise<ChatReply>;
  /**
   * The bot can no longer post to a channel (removed, archived, deleted): its
   * subscriptions pause, with one operations alert. Returns how many paused.
   */
  channelGone(platform: ChatPlatform, channel: string, reason: string): Promise<number>;
  /** What may complete `typed` in an option being typed (Discord's autocomplete). */
  suggest(field: SuggestionField, typed: string): Promise<ChatSuggestion[]>;
}

export type { ChatSuggestion, SuggestionField } from './suggest.js';
