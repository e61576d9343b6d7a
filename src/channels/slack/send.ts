/**
 * The Slack channels: `slack` (a channel, `#name` or id) and `slack_dm` (a user id, or an
 * email looked up with `users.lookupByEmail`), sharing one Web API client. The client's
 * own retries and rate-limit queue are off: every failure comes back as a typed
 * `DeliveryError` and the dispatcher retries. Messages are paced per destination; an
 * updated notice is posted in the thread of the notice's first message, which is then
 * edited to say it was superseded. Messages to channels carry buttons when the Slack app
 * answers them (`interactive`), and a post refused because the channel is gone or the bot
 * is no longer in it is reported through `onChannelGone` besides failing as usual.
 */
import * as webApi from '@slack/web-api';
import { targetKey } from '../../domain/targets.js';
import { channelGoneReporter, type OnChannelGone } from '../channel-gone.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, deadlineFor, withDeadline } from '../deadline.js';
import { oneLine } from '../text.js';
import type { Alert, Channel, ChannelDeps, Delivered, SendContext, ThreadRef } from '../types.js';
import { DeliveryError, DeliveryErrorCode } from '../types.js';
import { goneReason } from './channel-gone.js';
import { clientLogger } from './client-log.js';
import { failureOf, toDeliveryError, where } from './errors.js';
import { fetchWithin } from './fetch-within.js';
import { DEFAULT_PACE, type PaceOptions, Pacer } from './pacing.js';
import { MAX_DIGEST, markSuperseded, noticeIds, renderSlack, type SlackMessage } from './render.js';

export interface SlackOptions {
  /** The bot token (`xoxb-…`). */
  token: string;
  /** Base URL of the Web API (`SLACK_API_URL`); Slack's own when unset. */
  apiUrl?: string | undefined;
  /** Pacing per destination; default 1 message a second with a burst of 2. */
  perChannel?: PaceOptions | undefined;
  /** Total time of one Web API call, the answer's body included. */
  timeoutMs?: number | undefined;
  /**
   * Buttons on alerts posted to channels (not DMs): on when the Slack app runs to answer
   * their clicks.
   */
  interactive?: boolean | undefined;
  /**
   * Told when a post is refused because the channel no longer takes the bot's messages
   * (Slack's `channel_not_found`, `is_archived`, `not_in_channel`): `reason` says so in
   * words and names the error, `channel` is the conversation posted to, as the target or
   * the thread named it.
   */
  onChannelGone?: OnChannelGone | undefined;
}

export interface SlackChannels {
  slack: Channel<'slack'>;
  slack_dm: Channel<'slack_dm'>;
}

/** Thread subject of a notice: the first message sent for it to a target. */
const noticeSubject = (id: number) => `notice:${id}`;
/** Marks that a notice's first message was superseded (and whether the update is in its thread). */
const supersededSubject = (id: number) => `notice:${id}:superseded`;

/** Creates both Slack channels around one Web API client. */
export function createSlackChannels(options: SlackOptions, deps: ChannelDeps): SlackChannels {
  const log = deps.logger.child({ component: 'slack' });
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const client = new webApi.WebClient(options.token, {
    slackApiUrl: options.apiUrl || undefined,
    logger: clientLogger(log, options.token),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    fetch: fetchWithin(timeoutMs, deps.deadlineClock),
  });
  const pacer = new Pacer(options.perChannel ?? DEFAULT_PACE, deps.clock);
  const dmChannels = new Map<string, Promise<string>>();
  let closed: Promise<void> | undefined;

  /** Tells `onChannelGone`, whose failure never changes the send's outcome. */
  const channelGone = channelGoneReporter('Slack', options.onChannelGone, log);

  async function call<T>(destination: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw failureOf(error, destination, timeoutMs);
    }
  }

  /**
   * Posts one message when `pace` may take it, within the attempt's deadline from then;
   * a 429 holds `pace` for Retry-After.
   */
  function post(
    pace: string,
    destination: string,
    args: webApi.ChatPostMessageArguments,
    ctx: SendContext,
  ): Promise<{ channel: string; ts: string }> {
    // The client cannot be handed a signal per call: the deadline stops waiting for it,
    // and the client's own timeout (the same length) ends the request.
    const deadline = deadlineFor(
      'slack',
      ctx,
      { ms: timeoutMs, clock: deps.deadlineClock },
      where(destination),
    );
    return pacer.run(
      pace,
      async () => {
        try {
          const res = await withDeadline(deadline, () => client.chat.postMessage(args));
          return { channel: String(res.channel ?? args.channel), ts: String(res.ts ?? '') };
        } catch (error) {
          const gone = goneReason(error);
          if (gone) channelGone(args.channel, gone);
          const failure = failureOf(error, destination, timeoutMs);
          if (failure.code === DeliveryErrorCode.RateLimited) {
            const ms = failure.retryAfterMs ?? 1000;
            pacer.pause(pace, ms);
            log.warn(
              { destination, retryAfterMs: ms },
              `slack rate limit: holding ${destination} for ${ms} ms`,
            );
          }
          throw failure;
        }
      },
      ctx.signal,
    );
  }

  /** Edits a notice's first message to note the notices in it that were superseded. */
  async function supersede(key: string, ref: ThreadRef, ctx: SendContext): Promise<void> {
    const channel = ref.channel;
    const ts = ref.ts;
    if (!channel || !ts || !ref.blocks) return;
    const notes = new Map<number, string>();
    for (const id of (ref.notices ?? '').split(',').map(Number)) {
      const mark = ctx.threads.get(key, supersededSubject(id));
      if (!mark) continue;
      const see = mark.threaded === 'yes' ? ' — see thread' : '';
      notes.set(id, `:warning: *Superseded* by a later update${see}`);
    }
    try {
      const original = { text: ref.text ?? '', blocks: JSON.parse(ref.blocks) } as SlackMessage;
      const edited = markSuperseded(original, notes);
      await client.chat.update({ channel, ts, text: edited.text, blocks: edited.blocks });
    } catch (error) {
      const { reason } = toDeliveryError(error, channel);
      log.warn(
        { target: key, ts, reason },
        `could not mark the first Slack message superseded: ${reason}`,
      );
    }
  }

  async function deliver(
    key: string,
    channel: string,
    destination: string,
    alerts: readonly Alert[],
    ctx: SendContext,
    interactive: boolean,
  ): Promise<Delivered> {
    const message = renderSlack(alerts, ctx.now, { interactive });
    const common = {
      text: message.text,
      blocks: message.blocks,
      unfurl_links: false,
      unfurl_media: false,
      link_names: false,
      parse: 'none' as const,
    };
    const [only] = alerts;
    const n = only?.payload.notice;
    const updated =
      alerts.length === 1 &&
      only?.payload.kind === 'notice' &&
      n &&
      only.payload.state === 'updated';
    const root = updated ? ctx.threads.get(key, noticeSubject(n.id)) : undefined;
    if (n && root?.channel && root.ts) {
      const reply = await post(
        channel,
        destination,
        { ...common, channel: root.channel, thread_ts: root.ts, reply_broadcast: true },
        ctx,
      ).catch((error: unknown) => {
        // The first message is gone: post the update on its own.
        if (error instanceof DeliveryError && error.code === DeliveryErrorCode.ThreadLost)
          return undefined;
        throw error;
      });
      if (reply) {
        ctx.threads.set(key, supersededSubject(n.id), { threaded: 'yes', ts: reply.ts });
        await supersede(key, root, ctx);
        return { detail: `ok channel=${reply.channel} ts=${reply.ts} thread=${root.ts}` };
      }
    }
    const res = await post(channel, destination, { ...common, channel }, ctx);
    // Updated notices whose first message is elsewhere: mark that message superseded.
    const earlier = new Map<string, ThreadRef>();
    for (const a of alerts) {
      const id = a.payload.notice?.id;
      if (a.payload.kind !== 'notice' || a.payload.state !== 'updated' || id === undefined)
        continue;
      const ref = ctx.threads.get(key, noticeSubject(id));
      if (!ref?.ts) continue;
      ctx.threads.set(key, supersededSubject(id), { threaded: 'no', ts: res.ts });
      earlier.set(ref.ts, ref);
    }
    const ids = noticeIds(alerts);
    const ref: ThreadRef = {
      channel: res.channel,
      ts: res.ts,
      text: message.text,
      blocks: JSON.stringify(message.blocks),
      notices: ids.join(','),
    };
    for (const id of ids) {
      if (!ctx.threads.get(key, noticeSubject(id))) ctx.threads.set(key, noticeSubject(id), ref);
    }
    for (const earlierRef of earlier.values()) await supersede(key, earlierRef, ctx);
    return { detail: `ok channel=${res.channel} ts=${res.ts}` };
  }

  /** Any failure of a send as a `DeliveryError`: aborts and a closed channel included. */
  async function guarded(
    destination: string,
    ctx: SendContext,
    fn: () => Promise<Delivered>,
  ): Promise<Delivered> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      const why = ctx.signal?.aborted ? 'aborted' : closed ? 'closed' : undefined;
      if (why)
        throw new DeliveryError(`slack: ${why} (${where(destination)})`, {
          code: DeliveryErrorCode.Aborted,
          permanent: false,
        });
      throw toDeliveryError(error, destination);
    }
  }

  /** The DM conversation with a user (id or email), opened once and remembered. */
  function dmChannel(user: string): Promise<string> {
    const known = dmChannels.get(user);
    if (known) return known;
    const opening = (async () => {
      let id = user;
      if (user.includes('@')) {
        const found = await call(user, () => client.users.lookupByEmail({ email: user }));
        if (!found.user?.id)
          throw new DeliveryError(`slack: users_not_found (${user})`, {
            code: DeliveryErrorCode.NotFound,
            permanent: true,
          });
        id = found.user.id;
      }
      const opened = await call(user, () => client.conversations.open({ users: id }));
      const channel = opened.channel?.id;
      if (!channel)
        throw new DeliveryError(`slack: no DM channel (${user})`, {
          code: DeliveryErrorCode.Unknown,
          permanent: false,
        });
      return channel;
    })();
    dmChannels.set(user, opening);
    opening.catch(() => dmChannels.delete(user));
    return opening;
  }

  async function verify(): Promise<string> {
    const me = await call('auth.test', () => client.auth.test());
    const user = oneLine(String(me.user ?? me.user_id ?? 'unknown'));
    const team = oneLine(String(me.team ?? me.team_id ?? 'unknown'));
    return `slack: ${user} in ${team}`;
  }

  function close(): Promise<void> {
    closed ??= pacer.close();
    return closed;
  }

  return {
    slack: {
      kind: 'slack',
      maxDigest: MAX_DIGEST,
      send: (target, alerts, ctx) =>
        guarded(target.channel, ctx, () =>
          deliver(
            targetKey(target),
            target.channel,
            target.channel,
            alerts,
            ctx,
            options.interactive === true,
          ),
        ),
      verify,
      close,
    },
    slack_dm: {
      kind: 'slack_dm',
      maxDigest: MAX_DIGEST,
      send: (target, alerts, ctx) =>
        guarded(target.user, ctx, async () => {
          const channel = await dmChannel(target.user);
          return deliver(targetKey(target), channel, target.user, alerts, ctx, false);
        }),
      verify,
      close,
    },
  };
}
