/**
 * Posting and editing, as Slack's `chat.postMessage` and `chat.update` answer them: a
 * channel by id or `#name`, not archived, with the bot in it; a thread that exists; a
 * message Block Kit accepts (`slack-blocks.ts`); within the posting limit per channel (a
 * token bucket: `perSecond`, with a burst) or HTTP 429 with `Retry-After`. An edit that
 * leaves `blocks` out keeps the message's blocks, as Slack keeps them.
 */

import type { Answer, Args, FakeChannel, FakeMessage, SlackWorld } from './slack.js';
import { checkMessage, parseBlocks } from './slack-blocks.js';

const fail = (error: string, status = 200): Answer => ({ status, body: { ok: false, error } });

/** The posting methods of one fake, with every message they accepted. */
export function createMessaging(world: SlackWorld, rate: { perSecond: number; burst: number }) {
  const { channels, messages, now, nextTs } = world;
  const buckets = new Map<string, { tokens: number; last: number }>();
  const posts: FakeMessage[] = [];
  const updates: FakeMessage[] = [];

  function channelOf(ref: unknown): FakeChannel | undefined {
    if (typeof ref !== 'string') return undefined;
    const byId = channels.get(ref);
    if (byId) return byId;
    const name = ref.replace(/^#/, '');
    return [...channels.values()].find((c) => c.name === name && !c.id.startsWith('D'));
  }

  /** Takes a token from the channel's bucket, or says how many seconds until one. */
  function take(channel: string): number | undefined {
    const at = now();
    const b = buckets.get(channel) ?? { tokens: rate.burst, last: at };
    b.tokens = Math.min(rate.burst, b.tokens + ((at - b.last) / 1000) * rate.perSecond);
    b.last = at;
    buckets.set(channel, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate.perSecond));
  }

  function postMessage(args: Args): Answer {
    const c = channelOf(args.channel);
    if (!c) return fail('channel_not_found');
    if (c.archived) return fail('is_archived');
    if (c.member === false) return fail('not_in_channel');
    const problem = checkMessage(args.text, args.blocks);
    if (problem) return fail(problem);
    const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
    if (threadTs && !messages.has(`${c.id}/${threadTs}`)) return fail('thread_not_found');
    const wait = take(c.id);
    if (wait !== undefined) {
      return {
        status: 429,
        body: { ok: false, error: 'ratelimited' },
        headers: { 'retry-after': String(wait) },
      };
    }
    const ts = nextTs();
    const m: FakeMessage = {
      channel: c.id,
      ts,
      text: String(args.text ?? ''),
      blocks: parseBlocks(args.blocks),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(args.reply_broadcast === true || args.reply_broadcast === 'true'
        ? { reply_broadcast: true }
        : {}),
      args,
      at: now(),
    };
    messages.set(`${c.id}/${ts}`, { ...m });
    posts.push(m);
    return { body: { ok: true, channel: c.id, ts, message: botMessage(m) } };
  }

  /** `chat.update`: blocks left out keep the message's blocks, as Slack keeps them. */
  function update(args: Args): Answer {
    const c = typeof args.channel === 'string' ? channels.get(args.channel) : undefined;
    if (!c) return fail('channel_not_found');
    const key = `${c.id}/${String(args.ts)}`;
    const m = messages.get(key);
    if (!m) return fail('message_not_found');
    const problem = checkMessage(args.text, args.blocks ?? m.blocks);
    if (problem) return fail(problem);
    const edited = {
      ...m,
      text: String(args.text ?? ''),
      blocks: args.blocks === undefined ? m.blocks : parseBlocks(args.blocks),
      args,
      at: now(),
    };
    messages.set(key, edited);
    updates.push(edited);
    return {
      body: { ok: true, channel: c.id, ts: m.ts, text: edited.text, message: botMessage(edited) },
    };
  }

  /** A message as Slack returns it in `chat.postMessage` and `chat.update` answers. */
  function botMessage(m: FakeMessage): Args {
    return {
      type: 'message',
      text: m.text,
      ts: m.ts,
      user: world.botUser,
      bot_id: 'B0BOT',
      app_id: world.appId,
      team: world.team.id,
      blocks: m.blocks,
    };
  }

  return { postMessage, update, posts, updates };
}
