/**
 * What the Slack app does with each request, through the chat core (`ChatService`) only:
 * the `/pipewatch` command (its reply is the acknowledgement, its follow-up goes to the
 * `response_url`), clicks on pipewatch's buttons (acknowledged at once, then acted on:
 * an acknowledged alert is edited for everyone, anything else answered to whoever
 * clicked), the App Home tab, and the events that say a channel no longer takes the bot's
 * messages. A failure after the acknowledgement is logged in one line and never thrown
 * back into Bolt: Slack has had its answer.
 */
import type { App, BlockAction, RespondFn, SlashCommand, webApi } from '@slack/bolt';
import {
  ACTION_ID_PATTERN,
  acknowledgedBlocks,
  decodeAction,
  userMention,
} from '../../channels/slack/actions.js';
import { section } from '../../channels/slack/blocks.js';
import { slackDate } from '../../channels/slack/escape.js';
import { oneLine } from '../../channels/text.js';
import type { ChatAction, ChatCaller, ChatService } from '../../chat/types.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { counted } from '../../lib/words.js';
import { commandText } from './command-text.js';
import { FAILED } from './once.js';
import { homeView, privateNote, type ReplyMessage, replyMessage } from './reply-blocks.js';

/** The slash command the manifest declares. */
export const COMMAND = '/pipewatch';

/** Pages of `users.conversations` read for the home view (200 channels each). */
const HOME_CHANNEL_PAGES = 5;

/** Within this time, a second event saying the same channel is gone is not passed on. */
const GONE_REPEAT_MS = 60_000;

const INVALID_BUTTON = 'This button is no longer valid.';

export interface ListenerDeps {
  chat: ChatService;
  clock: Clock;
  log: Logger;
  /** The bot's own user id, to tell the bot leaving a channel from anyone else. */
  botUserId: string;
}

function messageOf(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error)).slice(0, 300);
}

/** A reply as a command's acknowledgement or a `response_url` message. */
function responseBody(message: ReplyMessage, isPrivate: boolean) {
  return {
    response_type: isPrivate ? ('ephemeral' as const) : ('in_channel' as const),
    text: message.text,
    blocks: message.blocks,
  };
}

/** Says something only to whoever clicked, through the click's `response_url`. */
async function tellClicker(respond: RespondFn | undefined, message: ReplyMessage): Promise<void> {
  await respond?.({ ...responseBody(message, true), replace_original: false });
}

/** The value a click carries: a button's, or the option chosen in a menu. */
function clickedValue(action: BlockAction['actions'][number]): string | undefined {
  if ('value' in action && typeof action.value === 'string') return action.value;
  if ('selected_option' in action) return action.selected_option?.value;
  return undefined;
}

/** Registers every listener of the app: the command, the clicks, the home tab, channels gone. */
export function registerListeners(app: App, deps: ListenerDeps): void {
  const home = new HomeTab(deps.chat, deps.log);
  listenToCommand(app, deps);
  listenToClicks(app, deps, home);
  listenToHomeOpened(app, deps, home);
  listenToChannelsGone(app, deps);
}

/** Who typed a `/pipewatch` command, and where. */
function commandCaller(command: SlashCommand): ChatCaller {
  return {
    platform: 'slack',
    channel: command.channel_id,
    channelName: command.channel_name || undefined,
    workspace: command.team_id || undefined,
    user: command.user_id,
    userName: command.user_name || undefined,
    direct: command.channel_id.startsWith('D') || command.channel_name === 'directmessage',
  };
}

/**
 * `/pipewatch`: the chat core's reply is the acknowledgement; a follow-up, when the core
 * has one, goes to the command's `response_url`.
 */
function listenToCommand(app: App, { chat, log }: ListenerDeps): void {
  app.command(COMMAND, async ({ command, ack, respond }) => {
    const caller = commandCaller(command);
    let answer: Awaited<ReturnType<ChatService['command']>>;
    try {
      answer = await chat.command(caller, commandText(command.text ?? ''));
    } catch (error) {
      log.error({ user: caller.user }, `${COMMAND} failed: ${messageOf(error)}`);
      await ack(responseBody(privateNote(FAILED), true));
      return;
    }
    await ack(responseBody(replyMessage(answer.reply), answer.reply.private));
    const post = (message: ReplyMessage, isPrivate: boolean) =>
      respond({ ...responseBody(message, isPrivate), replace_original: false });
    answer.followUp
      ?.then(
        async (reply) => {
          if (reply) await post(replyMessage(reply), reply.private);
        },
        async (error: unknown) => {
          log.error({ user: caller.user }, `${COMMAND} failed: ${messageOf(error)}`);
          await post(privateNote(FAILED), true);
        },
      )
      .catch((error: unknown) => {
        log.warn(
          { user: caller.user },
          `could not post the follow-up of ${COMMAND}: ${messageOf(error)}`,
        );
      });
  });
}

/**
 * The App Home tab: what a person has subscribed and set, in the channels they are in. A
 * click on the tab acts in the person's DM with the app, whose id is remembered.
 */
class HomeTab {
  private readonly dmChannels = new Map<string, string>();

  constructor(
    private readonly chat: ChatService,
    private readonly log: Logger,
  ) {}

  /** The DM channel of the app with a user, for clicks on the home tab. */
  async dmWith(client: webApi.WebClient, user: string): Promise<string> {
    const known = this.dmChannels.get(user);
    if (known) return known;
    const opened = await client.conversations.open({ users: user });
    const id = opened.channel?.id ?? '';
    if (id) this.dmChannels.set(user, id);
    return id;
  }

  /** The channels a user is in that the bot can see, for their home view. */
  async userChannels(client: webApi.WebClient, user: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < HOME_CHANNEL_PAGES; page += 1) {
      const res = await client.users.conversations({
        user,
        types: 'public_channel,private_channel',
        exclude_archived: true,
        limit: 200,
        ...(cursor ? { cursor } : {}),
      });
      for (const c of res.channels ?? []) if (c.id) ids.push(c.id);
      cursor = res.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    return ids;
  }

  /** Publishes a user's home view afresh. */
  async publish(client: webApi.WebClient, user: string): Promise<void> {
    const channels = await this.userChannels(client, user).catch((error: unknown) => {
      this.log.warn({ user }, `could not list the Slack channels of ${user}: ${messageOf(error)}`);
      return [] as string[];
    });
    const view = homeView(await this.chat.home('slack', user, channels));
    await client.views.publish({ user_id: user, view });
  }
}

/**
 * Clicks on pipewatch's buttons, acknowledged at once: a button no longer valid is said
 * so to whoever clicked; a click on the home tab acts in the clicker's DM and republishes
 * the tab.
 */
function listenToClicks(app: App, { chat, log }: ListenerDeps, home: HomeTab): void {
  app.action<BlockAction>(ACTION_ID_PATTERN, async ({ ack, body, action, respond, client }) => {
    await ack();
    const user = body.user.id;
    try {
      const fromHome = body.view?.type === 'home';
      const ts = body.container?.message_ts ?? body.message?.ts;
      const decoded = decodeAction(action.action_id, clickedValue(action), ts);
      if (!decoded) {
        log.info({ user, action: action.action_id }, 'a click on a button no longer valid');
        await tellClicker(respond, privateNote(INVALID_BUTTON));
        return;
      }
      const channel = body.channel?.id ?? (fromHome ? await home.dmWith(client, user) : '');
      const caller: ChatCaller = {
        platform: 'slack',
        channel,
        channelName: body.channel?.name || undefined,
        workspace: body.team?.id || undefined,
        user,
        userName: body.user.username || body.user.name || undefined,
        direct: fromHome || channel.startsWith('D'),
        ...(fromHome ? { memberOf: await home.userChannels(client, user).catch(() => []) } : {}),
      };
      await actOnClick(chat, client, respond, caller, decoded, body);
      if (fromHome) await home.publish(client, user);
    } catch (error) {
      log.warn({ user, action: action.action_id }, `a Slack button failed: ${messageOf(error)}`);
      await tellClicker(respond, privateNote(FAILED)).catch(() => undefined);
    }
  });
}

/**
 * Does what a click asks through the chat core: an acknowledgement edits the alert for
 * everyone (or tells the clicker who was first); any other reply goes to the clicker.
 */
async function actOnClick(
  chat: ChatService,
  client: webApi.WebClient,
  respond: RespondFn | undefined,
  caller: ChatCaller,
  action: ChatAction,
  body: BlockAction,
): Promise<void> {
  const result = await chat.action(caller, action);
  const ack = result.acknowledged;
  if (action.kind === 'ack' && ack && body.message) {
    if (ack.already) {
      const line = `Already acknowledged by ${userMention(ack.by)} at ${slackDate(ack.at, 'UTC')}.`;
      await tellClicker(respond, { text: 'Already acknowledged', blocks: [section(line)] });
    } else {
      await client.chat.update({
        channel: caller.channel,
        ts: action.message,
        text: String(body.message.text ?? ''),
        blocks: acknowledgedBlocks(body.message.blocks ?? [], ack.by, ack.at),
      });
    }
  }
  if (result.reply) await tellClicker(respond, replyMessage(result.reply));
}

/** The home tab, published each time a person opens it. */
function listenToHomeOpened(app: App, { log }: ListenerDeps, home: HomeTab): void {
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== undefined && event.tab !== 'home') return;
    await home.publish(client, event.user).catch((error: unknown) => {
      log.warn(
        { user: event.user },
        `could not publish the home view of ${event.user}: ${messageOf(error)}`,
      );
    });
  });
}

/**
 * A channel archived or deleted, or the bot removed from it: its subscriptions pause,
 * once however many events say it within a minute.
 */
function listenToChannelsGone(app: App, { chat, clock, log, botUserId }: ListenerDeps): void {
  const recentlyGone = new Map<string, number>();
  const gone = async (channel: string, reason: string): Promise<void> => {
    const now = clock.now().getTime();
    for (const [c, at] of recentlyGone) if (now - at >= GONE_REPEAT_MS) recentlyGone.delete(c);
    if (recentlyGone.has(channel)) return;
    recentlyGone.set(channel, now);
    try {
      const paused = await chat.channelGone('slack', channel, reason);
      log.info(
        { channel, paused },
        `Slack channel ${channel}: ${reason}; ${counted(paused, 'subscription')} paused`,
      );
    } catch (error) {
      log.error(
        { channel },
        `could not pause the subscriptions of ${channel}: ${messageOf(error)}`,
      );
    }
  };
  app.event('channel_archive', async ({ event }) =>
    gone(event.channel, 'the channel was archived'),
  );
  app.event('group_archive', async ({ event }) => gone(event.channel, 'the channel was archived'));
  app.event('channel_deleted', async ({ event }) => gone(event.channel, 'the channel was deleted'));
  app.event('group_deleted', async ({ event }) => gone(event.channel, 'the channel was deleted'));
  app.event('group_left', async ({ event }) =>
    gone(event.channel, 'pipewatch was removed from the channel'),
  );
  app.event('member_left_channel', async ({ event }) => {
    if (event.user === botUserId)
      await gone(event.channel, 'pipewatch was removed from the channel');
  });
}
