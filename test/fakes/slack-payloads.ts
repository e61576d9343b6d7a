/**
 * The payloads Slack sends a Slack app, field for field as Slack's documented examples
 * have them: a slash command, a `block_actions` click on a button (or a choice in a static
 * select) of a message, an ephemeral reply or the App Home, and `event_callback` envelopes (`app_home_opened`,
 * `channel_archive`, `channel_deleted`, `channel_left`, `member_left_channel`,
 * `group_left`) and `url_verification`. They name the Slack fake's workspace, and their
 * `response_url` is one of the fake's, so what the app answers there is recorded. The
 * same payloads go over HTTP (`slack-requests.ts`) and over Socket Mode (`slack-socket.ts`).
 */
import { randomBytes } from 'node:crypto';
import { FAKE_BOT_USER, type SlackFake } from './slack.js';
import { viewOutput } from './slack-methods.js';

/** The deprecated verification token Slack still puts in payloads. */
export const VERIFICATION_TOKEN = 'fakeVerificationToken0000';

/** A slash command, as Slack form-encodes it: every value a string. */
export interface SlashCommandPayload {
  token: string;
  team_id: string;
  team_domain: string;
  channel_id: string;
  channel_name: string;
  user_id: string;
  user_name: string;
  command: string;
  text: string;
  api_app_id: string;
  is_enterprise_install: string;
  response_url: string;
  trigger_id: string;
  [field: string]: string;
}

const triggerId = () =>
  `${Date.now() % 1e11}.${Math.floor(Math.random() * 1e12)}.${randomBytes(16).toString('hex')}`;

const tsOf = (at: Date) => (at.getTime() / 1000).toFixed(6);

function userOf(fake: SlackFake, id: string) {
  const user = fake.users.find((u) => u.id === id);
  if (!user) throw new Error(`the Slack fake has no user ${id}`);
  return user;
}

/** How Slack names a channel in a command: `directmessage` and `privategroup` for those. */
function channelName(fake: SlackFake, id: string): string {
  if (id.startsWith('D')) return 'directmessage';
  const c = fake.channels.get(id);
  if (!c) throw new Error(`the Slack fake has no channel ${id}`);
  return c.private ? 'privategroup' : c.name;
}

/** `/pipewatch <text>` typed by `user` (default U0ALICE) in `channel` (default C0GAS). */
export function slashCommand(
  fake: SlackFake,
  input: { text: string; command?: string; channel?: string; user?: string },
): SlashCommandPayload {
  const channel = input.channel ?? 'C0GAS';
  const user = userOf(fake, input.user ?? 'U0ALICE');
  return {
    token: VERIFICATION_TOKEN,
    team_id: fake.team.id,
    team_domain: fake.team.domain,
    channel_id: channel,
    channel_name: channelName(fake, channel),
    user_id: user.id,
    user_name: user.name,
    command: input.command ?? '/pipewatch',
    text: input.text,
    api_app_id: fake.appId,
    is_enterprise_install: 'false',
    response_url: fake.responseUrl({ channel, user: user.id }),
    trigger_id: triggerId(),
  };
}

/** Where a clicked button is: a message in the fake, an ephemeral reply, or the user's App Home. */
export type ActionSource =
  | { message: { channel: string; ts: string } }
  | { ephemeral: { channel: string; blocks: unknown[]; ts?: string } }
  | { home: true };

type Json = Record<string, unknown>;

/**
 * The element with `actionId` among `blocks`, with its block's id: a button (with `value`,
 * when given), or a static select offering an option of value `value`.
 */
function findElement(blocks: unknown[], actionId: string, value?: string) {
  for (const block of blocks as Json[]) {
    const elements = [
      ...(Array.isArray(block.elements) ? (block.elements as Json[]) : []),
      ...(block.accessory ? [block.accessory as Json] : []),
    ];
    const element = elements.find(
      (e) =>
        e.action_id === actionId &&
        (value === undefined ||
          (e.type === 'static_select' ? optionOf(e, value) !== undefined : e.value === value)),
    );
    if (element)
      return { element, blockId: String(block.block_id ?? randomBytes(3).toString('hex')) };
  }
  return undefined;
}

/** The option of a static select whose value is `value`. */
function optionOf(select: Json, value: string): Json | undefined {
  const options = Array.isArray(select.options) ? (select.options as Json[]) : [];
  return options.find((o) => o.value === value);
}

/** The `actions` item Slack sends for a click on `element`, or a choice of `value` in it. */
function actionOf(element: Json, blockId: string, value: string | undefined, ts: string): Json {
  const id = { action_id: element.action_id, block_id: blockId };
  if (element.type !== 'static_select') {
    return {
      ...id,
      text: element.text,
      ...(element.value !== undefined ? { value: element.value } : {}),
      ...(element.style !== undefined ? { style: element.style } : {}),
      type: 'button',
      action_ts: ts,
    };
  }
  const chosen = value === undefined ? undefined : optionOf(element, value);
  if (!chosen) throw new Error(`choose an option of ${String(element.action_id)} by its value`);
  return {
    type: 'static_select',
    ...id,
    selected_option: { text: chosen.text, value: chosen.value },
    ...(element.placeholder !== undefined ? { placeholder: element.placeholder } : {}),
    action_ts: ts,
  };
}

/**
 * A `block_actions` payload: `user` (default U0ALICE) clicks the button `actionId` (with
 * `value`, to tell apart buttons that share an id) on `source`, or, when `actionId` is a
 * static select, chooses its option of value `value`. The element must be there: its
 * text, value, style, options and block id are read from the blocks, as Slack sends them,
 * and a chosen option is in `state.values` too.
 */
export function blockActions(
  fake: SlackFake,
  input: { source: ActionSource; actionId: string; value?: string; user?: string; at?: Date },
): Json {
  const user = userOf(fake, input.user ?? 'U0ALICE');
  const at = input.at ?? new Date();
  const source = input.source;
  let blocks: unknown[];
  let surface: Json;
  if ('message' in source) {
    const m = fake.message(source.message.channel, source.message.ts);
    if (!m) throw new Error(`the Slack fake has no message ${source.message.ts}`);
    blocks = m.blocks;
    surface = {
      container: { type: 'message', message_ts: m.ts, channel_id: m.channel, is_ephemeral: false },
      channel: { id: m.channel, name: channelName(fake, m.channel) },
      message: {
        type: 'message',
        subtype: 'bot_message',
        text: m.text,
        ts: m.ts,
        user: FAKE_BOT_USER,
        bot_id: 'B0BOT',
        app_id: fake.appId,
        team: fake.team.id,
        blocks: m.blocks,
        ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
      },
      response_url: fake.responseUrl({
        channel: m.channel,
        user: user.id,
        message: source.message,
      }),
    };
  } else if ('ephemeral' in source) {
    const e = source.ephemeral;
    blocks = e.blocks;
    surface = {
      container: {
        type: 'message',
        message_ts: e.ts ?? tsOf(at),
        channel_id: e.channel,
        is_ephemeral: true,
      },
      channel: { id: e.channel, name: channelName(fake, e.channel) },
      response_url: fake.responseUrl({ channel: e.channel, user: user.id }),
    };
  } else {
    const home = fake.views.get(user.id);
    if (!home) throw new Error(`no home view is published to ${user.id}`);
    blocks = home.blocks;
    surface = { container: { type: 'view', view_id: home.id }, view: homeView(fake, user.id) };
  }
  const found = findElement(blocks, input.actionId, input.value);
  if (!found) throw new Error(`no button ${input.actionId} to click on that surface`);
  const action = actionOf(found.element, found.blockId, input.value, tsOf(at));
  const state =
    action.type === 'static_select'
      ? {
          [found.blockId]: {
            [input.actionId]: { type: 'static_select', selected_option: action.selected_option },
          },
        }
      : {};
  return {
    type: 'block_actions',
    user: { id: user.id, username: user.name, name: user.name, team_id: fake.team.id },
    api_app_id: fake.appId,
    token: VERIFICATION_TOKEN,
    trigger_id: triggerId(),
    team: { id: fake.team.id, domain: fake.team.domain },
    enterprise: null,
    is_enterprise_install: false,
    state: { values: state },
    ...surface,
    actions: [action],
  };
}

function homeView(fake: SlackFake, user: string): Json | undefined {
  const home = fake.views.get(user);
  if (!home) return undefined;
  return viewOutput(fake, home);
}

/** An Events API `event_callback` around `event`, authorized for the fake's bot. */
export function eventCallback(fake: SlackFake, event: Json, at = new Date()): Json {
  return {
    token: VERIFICATION_TOKEN,
    team_id: fake.team.id,
    api_app_id: fake.appId,
    event: { event_ts: tsOf(at), ...event },
    type: 'event_callback',
    event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
    event_time: Math.floor(at.getTime() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: fake.team.id,
        user_id: FAKE_BOT_USER,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${Buffer.from(JSON.stringify({ et: event.type, tid: fake.team.id })).toString('base64')}`,
  };
}

/** The events pipewatch's Slack app listens to, each as an `event_callback`. */
export const slackEvents = {
  /** `user` opens the app's Home tab; `view` is their home view, when one is published. */
  appHomeOpened: (fake: SlackFake, user: string, tab: 'home' | 'messages' = 'home') => {
    const view = homeView(fake, user);
    return eventCallback(fake, {
      type: 'app_home_opened',
      user,
      channel: `D${user}`,
      tab,
      ...(view ? { view } : {}),
    });
  },
  channelArchive: (fake: SlackFake, channel: string, user = 'U0ALICE') =>
    eventCallback(fake, { type: 'channel_archive', channel, user, is_moved: 0 }),
  channelDeleted: (fake: SlackFake, channel: string, actor = 'U0ALICE') =>
    eventCallback(fake, { type: 'channel_deleted', channel, actor_id: actor }),
  /** The bot was removed from a public channel. */
  channelLeft: (fake: SlackFake, channel: string, actor = 'U0ALICE') =>
    eventCallback(fake, { type: 'channel_left', channel, actor_id: actor }),
  /** The bot was removed from a private channel. */
  groupLeft: (fake: SlackFake, channel: string, actor = 'U0ALICE') =>
    eventCallback(fake, { type: 'group_left', channel, actor_id: actor }),
  /** `user` (default the bot) left `channel`; `channel_type` C public, G private. */
  memberLeftChannel: (fake: SlackFake, channel: string, user = FAKE_BOT_USER) =>
    eventCallback(fake, {
      type: 'member_left_channel',
      user,
      channel,
      channel_type: fake.channels.get(channel)?.private ? 'G' : 'C',
      team: fake.team.id,
    }),
};

/** The challenge Slack sends when a Request URL is saved; the app answers with `challenge`. */
export function urlVerification(challenge = randomBytes(20).toString('base64url')): Json {
  return { token: VERIFICATION_TOKEN, challenge, type: 'url_verification' };
}
