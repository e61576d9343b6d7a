/**
 * The Web API methods besides posting, answered as Slack answers them: `auth.test`,
 * `conversations.open` (a DM with one user), `users.lookupByEmail`, and for the Slack app
 * `views.publish` (a `home` view of at most 100 valid blocks, kept per user; errors as
 * `invalid_arguments` with Slack's `response_metadata.messages`), `users.conversations`
 * (a user's channels, paged with `cursor` and `limit`), `conversations.info` (a channel's
 * name, `is_archived`, `is_member`) and `chat.postEphemeral`.
 */
import { createHash } from 'node:crypto';
import type { Answer, Args, FakeChannel, SlackWorld } from './slack.js';
import { checkMessage, parseBlocks } from './slack-blocks.js';

/** A home view as published to one user. */
export interface FakeHomeView {
  user: string;
  /** The view's id: the same for every publish to this user, as Slack keeps it. */
  id: string;
  /** Changes with each publish; `views.publish` with an older one fails `hash_conflict`. */
  hash: string;
  /** The view as sent, parsed. */
  view: Record<string, unknown>;
  blocks: unknown[];
  at: number;
}

/** An ephemeral message: seen by `user` only, in `channel`. */
export interface FakeEphemeral {
  channel: string;
  user: string;
  text: string;
  blocks: unknown[];
  thread_ts?: string;
  /** The `message_ts` Slack answered with. */
  ts: string;
  args: Args;
  at: number;
}

const fail = (error: string, messages?: string[]): Answer => ({
  body: { ok: false, error, ...(messages ? { response_metadata: { messages } } : {}) },
});

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const flag = (v: unknown): boolean => v === true || v === 'true' || v === '1' || v === 1;

/** A channel as the conversations methods describe it. */
function conversation(world: SlackWorld, c: FakeChannel): Args {
  if (c.id.startsWith('D')) {
    return { id: c.id, created: 1_700_000_000, is_im: true, is_org_shared: false, user: c.name };
  }
  return {
    id: c.id,
    name: c.name,
    is_channel: true,
    is_group: false,
    is_im: false,
    is_mpim: false,
    is_private: c.private === true,
    created: 1_700_000_000,
    is_archived: c.archived === true,
    is_general: false,
    unlinked: 0,
    name_normalized: c.name,
    is_shared: false,
    is_org_shared: false,
    is_ext_shared: false,
    is_pending_ext_shared: false,
    pending_shared: [],
    context_team_id: world.team.id,
    parent_conversation: null,
    creator: 'U0ALICE',
    previous_names: [],
    topic: { value: '', creator: '', last_set: 0 },
    purpose: { value: '', creator: '', last_set: 0 },
  };
}

const botIn = (c: FakeChannel) => c.member !== false;

/** `conversations.info`: unknown channels, and private ones without the bot, are not found. */
function conversationsInfo(world: SlackWorld, args: Args): Answer {
  const c = typeof args.channel === 'string' ? world.channels.get(args.channel) : undefined;
  if (!c || (c.private && !botIn(c))) return fail('channel_not_found');
  const channel = { ...conversation(world, c), is_member: botIn(c) };
  if (flag(args.include_num_members)) Object.assign(channel, { num_members: c.members?.length });
  return { body: { ok: true, channel } };
}

const TYPES = ['public_channel', 'private_channel', 'mpim', 'im'];

/**
 * `users.conversations`: the channels `user` is in (the bot's own without `user`), of
 * `types` (default public channels), private ones only where the bot is too, in pages of
 * `limit` (default 100, at most 1000) joined by `response_metadata.next_cursor`.
 */
function usersConversations(world: SlackWorld, args: Args): Answer {
  const types = String(args.types || 'public_channel')
    .split(',')
    .map((t) => t.trim());
  if (types.some((t) => !TYPES.includes(t))) return fail('invalid_types');
  const limit = args.limit === undefined || args.limit === '' ? 100 : Number(args.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return fail('invalid_limit');
  const user = typeof args.user === 'string' && args.user !== '' ? args.user : undefined;
  if (user && !world.users.some((u) => u.id === user)) return fail('user_not_found');
  let offset = 0;
  if (typeof args.cursor === 'string' && args.cursor !== '') {
    const m = /^offset:(\d+)$/.exec(Buffer.from(args.cursor, 'base64').toString('utf8'));
    if (!m) return fail('invalid_cursor');
    offset = Number(m[1]);
  }
  const all = [...world.channels.values()].filter((c) => {
    if (c.id.startsWith('D')) return types.includes('im') && (!user || c.members?.includes(user));
    if (!types.includes(c.private ? 'private_channel' : 'public_channel')) return false;
    if (flag(args.exclude_archived) && c.archived) return false;
    if (c.private && !botIn(c)) return false;
    return user ? (c.members ?? []).includes(user) : botIn(c);
  });
  const page = all.slice(offset, offset + limit);
  const next = offset + limit < all.length ? offset + limit : undefined;
  return {
    body: {
      ok: true,
      channels: page.map((c) => conversation(world, c)),
      response_metadata: {
        next_cursor:
          next === undefined ? '' : Buffer.from(`offset:${next}`, 'utf8').toString('base64'),
      },
    },
  };
}

/** `chat.postEphemeral`: to a member of a channel the bot is in. */
function postEphemeral(world: SlackWorld, args: Args, into: FakeEphemeral[]): Answer {
  const c = typeof args.channel === 'string' ? world.channels.get(args.channel) : undefined;
  if (!c) return fail('channel_not_found');
  if (c.archived) return fail('is_archived');
  if (!botIn(c)) return fail('not_in_channel');
  const user = typeof args.user === 'string' ? args.user : '';
  if (!world.users.some((u) => u.id === user) || !(c.members ?? []).includes(user)) {
    return fail('user_not_in_channel');
  }
  const problem = checkMessage(args.text, args.blocks);
  if (problem) return fail(problem);
  const ts = world.nextTs();
  into.push({
    channel: c.id,
    user,
    text: String(args.text ?? ''),
    blocks: parseBlocks(args.blocks),
    ...(typeof args.thread_ts === 'string' ? { thread_ts: args.thread_ts } : {}),
    ts,
    args,
    at: world.now(),
  });
  return { body: { ok: true, message_ts: ts } };
}

/** What Slack says is wrong with a home view, as `response_metadata.messages`. */
export function viewProblems(view: Record<string, unknown>): string[] {
  if (view.type !== 'home') return ['[ERROR] must be home [json-pointer:/view/type]'];
  const blocks = view.blocks;
  if (!Array.isArray(blocks))
    return ['[ERROR] missing required field: blocks [json-pointer:/view]'];
  if (blocks.length > 100) {
    return ['[ERROR] must provide no more than 100 items [json-pointer:/view/blocks]'];
  }
  const problems = blocks.flatMap((b, i) =>
    checkMessage('x', [b]) ? [`[ERROR] invalid block [json-pointer:/view/blocks/${i}]`] : [],
  );
  const ids = blocks.flatMap((b) => (isObject(b) && typeof b.block_id === 'string' ? [b] : []));
  if (new Set(ids.map((b) => b.block_id)).size !== ids.length) {
    problems.push('[ERROR] duplicate block_id [json-pointer:/view/blocks]');
  }
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > 3000) {
    problems.push(
      '[ERROR] must be less than 3001 characters [json-pointer:/view/private_metadata]',
    );
  }
  return problems;
}

/** `views.publish`: a user's App Home. */
function publishView(
  world: SlackWorld,
  args: Args,
  views: Map<string, FakeHomeView>,
  history: FakeHomeView[],
): Answer {
  const user = typeof args.user_id === 'string' ? args.user_id : '';
  if (!world.users.some((u) => u.id === user))
    return fail('invalid_arguments', ['invalid `user_id`']);
  let view: unknown = args.view;
  if (typeof view === 'string') {
    try {
      view = JSON.parse(view);
    } catch {
      return fail('invalid_arguments', ['[ERROR] invalid json [json-pointer:/view]']);
    }
  }
  if (!isObject(view)) {
    return fail('invalid_arguments', ['[ERROR] missing required field: view']);
  }
  const problems = viewProblems(view);
  if (problems.length > 0) return fail('invalid_arguments', problems);
  const before = views.get(user);
  if (typeof args.hash === 'string' && args.hash !== '' && args.hash !== before?.hash) {
    return fail('hash_conflict');
  }
  const id =
    before?.id ?? `V${createHash('sha1').update(user).digest('hex').slice(0, 10).toUpperCase()}`;
  const published: FakeHomeView = {
    user,
    id,
    hash: `${Math.floor(world.wallNow() / 1000)}.${history.length + 1}`,
    view,
    blocks: view.blocks as unknown[],
    at: world.now(),
  };
  views.set(user, published);
  history.push(published);
  return { body: { ok: true, view: viewOutput(world, published) } };
}

/** A published view as Slack describes it, in answers and in `app_home_opened` events. */
export function viewOutput(ids: { team: { id: string }; appId: string }, v: FakeHomeView): Args {
  return {
    id: v.id,
    team_id: ids.team.id,
    type: 'home',
    blocks: v.blocks,
    private_metadata: typeof v.view.private_metadata === 'string' ? v.view.private_metadata : '',
    callback_id: typeof v.view.callback_id === 'string' ? v.view.callback_id : '',
    state: { values: {} },
    hash: v.hash,
    title: { type: 'plain_text', text: 'View Title', emoji: true },
    clear_on_close: false,
    notify_on_close: false,
    close: null,
    submit: null,
    previous_view_id: null,
    root_view_id: v.id,
    app_id: ids.appId,
    external_id: typeof v.view.external_id === 'string' ? v.view.external_id : '',
    app_installed_team_id: ids.team.id,
    bot_id: 'B0BOT',
  };
}

/** The methods of one fake, with what they keep: ephemeral messages and home views. */
export function createMethods(world: SlackWorld) {
  const ephemerals: FakeEphemeral[] = [];
  const views = new Map<string, FakeHomeView>();
  const publishes: FakeHomeView[] = [];

  /** The answer to `method`, or undefined for a method the fake does not know. */
  function answer(method: string, args: Args): Answer | undefined {
    switch (method) {
      case 'auth.test':
        return {
          body: {
            ok: true,
            url: `https://${world.team.domain}.slack.com/`,
            team: world.team.name,
            user: 'pipewatch',
            team_id: world.team.id,
            user_id: world.botUser,
            bot_id: 'B0BOT',
          },
        };
      case 'chat.postEphemeral':
        return postEphemeral(world, args, ephemerals);
      case 'views.publish':
        return publishView(world, args, views, publishes);
      case 'users.conversations':
        return usersConversations(world, args);
      case 'conversations.info':
        return conversationsInfo(world, args);
      case 'conversations.open': {
        const ids = String(args.users ?? '')
          .split(',')
          .filter(Boolean);
        const user = world.users.find((u) => u.id === ids[0]);
        if (ids.length !== 1 || !user) return fail('user_not_found');
        const id = `D${user.id}`;
        if (!world.channels.has(id)) world.channels.set(id, { id, name: id, members: [user.id] });
        return { body: { ok: true, channel: { id } } };
      }
      case 'users.lookupByEmail': {
        const email = String(args.email ?? '').toLowerCase();
        const user = world.users.find((u) => u.email.toLowerCase() === email);
        if (!user) return fail('users_not_found');
        return {
          body: {
            ok: true,
            user: { id: user.id, name: user.name, profile: { email: user.email } },
          },
        };
      }
      default:
        return undefined;
    }
  }

  return { answer, ephemerals, views, publishes };
}
