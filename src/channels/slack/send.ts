/**
 * The Slack channels: `slack` (a channel, `#name` or id) and `slack_dm` (a user id, or an
 * email looked up with `users.lookupByEmail`), sharing one Web API client. The client's
 * own retries and rate-limit queue are off: every failure comes back as a typed
 * `DeliveryError` and the dispatcher retries. Messages are paced per destination; an
 * updated notice is posted in the thread of the notice's first message, which is then
 * edited to say it was superseded. Messages to channels carry buttons when the Slack app
 * answers them (`interactive`), and a post refused because the channel is gone or the bot
 * is no longer in it is reported through `onChannelGone` besides failing as usual. A
 * capacity alert's OAC charts follow its message as files (`chart-upload.ts`), once the
 * message is posted: an upload that fails is a warning, never a failed send.
 */

import * as webApi from '@slack/web-api';
import { slackPostedDetail } from '../../domain/posted-message.js';
import { targetKey } from '../../domain/targets.js';
import type { Logger } from '../../lib/logger.js';
import type { Notice } from '../../upstream/schemas.js';
import { mergeCapacityPayloads } from '../capacity.js';
import { channelGoneReporter, type OnChannelGone } from '../channel-gone.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, deadlineFor, withDeadline } from '../deadline.js';
import { oneLine } from '../text.js';
import type { Alert, Channel, ChannelDeps, Delivered, SendContext, ThreadRef } from '../types.js';
import { DeliveryError, DeliveryErrorCode } from '../types.js';
import { goneReason } from './channel-gone.js';
import { ChartUploads } from './chart-upload.js';
import { clientLogging } from './client-log.js';
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
  const sender = new SlackSender(options, deps);
  const interactive = options.interactive === true;
  const verify = () => sender.verify();
  const close = () => sender.close();
  return {
    slack: {
      kind: 'slack',
      maxDigest: MAX_DIGEST,
      send: (target, alerts, ctx) =>
        sender.guarded(target.channel, ctx, () =>
          sender.deliver(
            targetKey(target),
            target.channel,
            target.channel,
            alerts,
            ctx,
            interactive,
          ),
        ),
      verify,
      close,
    },
    slack_dm: {
      kind: 'slack_dm',
      maxDigest: MAX_DIGEST,
      send: (target, alerts, ctx) =>
        sender.guarded(target.user, ctx, async () => {
          const channel = await sender.dmChannel(target.user);
          return sender.deliver(targetKey(target), channel, target.user, alerts, ctx, false);
        }),
      verify,
      close,
    },
  };
}

/** The Slack message fields every post of a rendered message shares. */
function postFields(message: SlackMessage) {
  return {
    text: message.text,
    blocks: message.blocks,
    unfurl_links: false,
    unfurl_media: false,
    link_names: false,
    parse: 'none' as const,
  };
}

/** The one updated notice a send is about, when it is about one alone. */
function loneUpdate(alerts: readonly Alert[]): Notice | undefined {
  const [only] = alerts;
  if (alerts.length !== 1 || only?.payload.kind !== 'notice') return undefined;
  return only.payload.state === 'updated' ? only.payload.notice : undefined;
}

/**
 * What both channels share: the Web API client, the pacing per destination, the DM
 * conversations opened so far, and the steps of a send.
 */
class SlackSender {
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private readonly client: webApi.WebClient;
  private readonly pacer: Pacer;
  private readonly charts: ChartUploads;
  private readonly dmChannels = new Map<string, Promise<string>>();
  /** Tells `onChannelGone`, whose failure never changes the send's outcome. */
  private readonly channelGone: ReturnType<typeof channelGoneReporter>;
  private closed: Promise<void> | undefined;

  constructor(
    options: SlackOptions,
    private readonly deps: ChannelDeps,
  ) {
    this.log = deps.logger.child({ component: 'slack' });
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
    this.client = new webApi.WebClient(options.token, {
      slackApiUrl: options.apiUrl || undefined,
      ...clientLogging(this.log, options.token, fetchWithin(this.timeoutMs, deps.deadlineClock)),
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    this.pacer = new Pacer(options.perChannel ?? DEFAULT_PACE, deps.clock, 'slack');
    this.channelGone = channelGoneReporter('Slack', options.onChannelGone, this.log);
    this.charts = new ChartUploads({
      client: this.client,
      token: options.token,
      apiUrl: options.apiUrl,
      charts: deps.charts,
      timeoutMs: this.timeoutMs,
      clock: deps.clock,
      deadlineClock: deps.deadlineClock,
      log: this.log,
    });
  }

  /**
   * Sends `alerts` to `channel` as one message: an update of a notice alone goes into
   * the thread of the notice's first message (`postInThread`), anything else is posted
   * on its own; then the first messages of notices it updates are marked superseded.
   */
  async deliver(
    key: string,
    channel: string,
    destination: string,
    alerts: readonly Alert[],
    ctx: SendContext,
    interactive: boolean,
  ): Promise<Delivered> {
    const message = renderSlack(alerts, ctx.now, { interactive });
    const threaded = await this.postInThread(key, channel, destination, alerts, message, ctx);
    if (threaded) return threaded;
    const res = await this.post(channel, destination, { ...postFields(message), channel }, ctx);
    this.shareCharts(key, res.channel, undefined, alerts);
    const earlier = await this.updatedElsewhere(key, alerts, res.ts, ctx);
    await this.rememberFirstMessages(key, alerts, message, res, ctx);
    for (const ref of earlier) await this.supersede(key, ref, ctx);
    return { detail: slackPostedDetail(res.channel, res.ts) };
  }

  /**
   * Posts the update of a notice alone as a reply in the thread of its first message,
   * broadcast to the channel, and marks that message superseded. Undefined when the
   * send is not such an update, or the first message is gone: then it is posted on its
   * own.
   */
  private async postInThread(
    key: string,
    channel: string,
    destination: string,
    alerts: readonly Alert[],
    message: SlackMessage,
    ctx: SendContext,
  ): Promise<Delivered | undefined> {
    const n = loneUpdate(alerts);
    const root = n ? await ctx.threads.get(key, noticeSubject(n.id)) : undefined;
    if (!n || !root?.channel || !root.ts) return undefined;
    const args = {
      ...postFields(message),
      channel: root.channel,
      thread_ts: root.ts,
      reply_broadcast: true,
    };
    const reply = await this.post(channel, destination, args, ctx).catch((error: unknown) => {
      if (error instanceof DeliveryError && error.code === DeliveryErrorCode.ThreadLost)
        return undefined;
      throw error;
    });
    if (!reply) return undefined;
    this.shareCharts(key, reply.channel, root.ts, alerts);
    await ctx.threads.set(key, supersededSubject(n.id), { threaded: 'yes', ts: reply.ts });
    await this.supersede(key, root, ctx);
    return { detail: slackPostedDetail(reply.channel, reply.ts, root.ts) };
  }

  /** Starts sharing the OAC charts of the capacity alerts just posted, beside the send. */
  private shareCharts(
    target: string,
    channel: string,
    threadTs: string | undefined,
    alerts: readonly Alert[],
  ): void {
    const payloads = mergeCapacityPayloads(alerts.map((a) => a.payload));
    this.charts.start({ target, channel, threadTs, payloads });
  }

  /**
   * The first messages of the updated notices in `alerts` that were posted earlier, each
   * once, with each notice noted as superseded by the message `ts` just posted.
   */
  private async updatedElsewhere(
    key: string,
    alerts: readonly Alert[],
    ts: string,
    ctx: SendContext,
  ): Promise<ThreadRef[]> {
    const earlier = new Map<string, ThreadRef>();
    for (const a of alerts) {
      const id = a.payload.notice?.id;
      if (a.payload.kind !== 'notice' || a.payload.state !== 'updated' || id === undefined)
        continue;
      const ref = await ctx.threads.get(key, noticeSubject(id));
      if (!ref?.ts) continue;
      await ctx.threads.set(key, supersededSubject(id), { threaded: 'no', ts });
      earlier.set(ref.ts, ref);
    }
    return [...earlier.values()];
  }

  /** Remembers `res` as the first message of each notice in it that had none yet. */
  private async rememberFirstMessages(
    key: string,
    alerts: readonly Alert[],
    message: SlackMessage,
    res: { channel: string; ts: string },
    ctx: SendContext,
  ): Promise<void> {
    const ids = noticeIds(alerts);
    const ref: ThreadRef = {
      channel: res.channel,
      ts: res.ts,
      text: message.text,
      blocks: JSON.stringify(message.blocks),
      notices: ids.join(','),
    };
    for (const id of ids) {
      if (!(await ctx.threads.get(key, noticeSubject(id))))
        await ctx.threads.set(key, noticeSubject(id), ref);
    }
  }

  /**
   * Posts one message when `pace` may take it, within the attempt's deadline from then;
   * a 429 holds `pace` for Retry-After.
   */
  private post(
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
      { ms: this.timeoutMs, clock: this.deps.deadlineClock },
      where(destination),
    );
    return this.pacer.run(
      pace,
      async () => {
        try {
          const res = await withDeadline(deadline, () => this.client.chat.postMessage(args));
          return { channel: String(res.channel ?? args.channel), ts: String(res.ts ?? '') };
        } catch (error) {
          throw this.postFailure(error, pace, destination, args.channel);
        }
      },
      ctx.signal,
    );
  }

  /**
   * A failed post as a `DeliveryError`, after telling `onChannelGone` when the channel no
   * longer takes the bot's messages and holding `pace` when Slack said to wait.
   */
  private postFailure(
    error: unknown,
    pace: string,
    destination: string,
    channel: string,
  ): DeliveryError {
    const gone = goneReason(error);
    if (gone) this.channelGone(channel, gone);
    const failure = failureOf(error, destination, this.timeoutMs);
    if (failure.code === DeliveryErrorCode.RateLimited) {
      const ms = failure.retryAfterMs ?? 1000;
      this.pacer.pause(pace, ms);
      this.log.warn(
        { destination, retryAfterMs: ms },
        `slack rate limit: holding ${destination} for ${ms} ms`,
      );
    }
    return failure;
  }

  /** Edits a notice's first message to note the notices in it that were superseded. */
  private async supersede(key: string, ref: ThreadRef, ctx: SendContext): Promise<void> {
    const { channel, ts } = ref;
    if (!channel || !ts || !ref.blocks) return;
    const notes = new Map<number, string>();
    for (const id of (ref.notices ?? '').split(',').map(Number)) {
      const mark = await ctx.threads.get(key, supersededSubject(id));
      if (!mark) continue;
      const see = mark.threaded === 'yes' ? ' — see thread' : '';
      notes.set(id, `:warning: *Superseded* by a later update${see}`);
    }
    try {
      const original = { text: ref.text ?? '', blocks: JSON.parse(ref.blocks) } as SlackMessage;
      const edited = markSuperseded(original, notes);
      await this.client.chat.update({ channel, ts, text: edited.text, blocks: edited.blocks });
    } catch (error) {
      const { reason } = toDeliveryError(error, channel);
      this.log.warn(
        { target: key, ts, reason },
        `could not mark the first Slack message superseded: ${reason}`,
      );
    }
  }

  /** Any failure of a send as a `DeliveryError`: aborts and a closed channel included. */
  async guarded(
    destination: string,
    ctx: SendContext,
    fn: () => Promise<Delivered>,
  ): Promise<Delivered> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      const why = ctx.signal?.aborted ? 'aborted' : this.closed ? 'closed' : undefined;
      if (why)
        throw new DeliveryError(`slack: ${why} (${where(destination)})`, {
          code: DeliveryErrorCode.Aborted,
          permanent: false,
        });
      throw toDeliveryError(error, destination);
    }
  }

  /** The DM conversation with a user (id or email), opened once and remembered. */
  dmChannel(user: string): Promise<string> {
    const known = this.dmChannels.get(user);
    if (known) return known;
    const opening = this.openDm(user);
    this.dmChannels.set(user, opening);
    opening.catch(() => this.dmChannels.delete(user));
    return opening;
  }

  private async openDm(user: string): Promise<string> {
    let id = user;
    if (user.includes('@')) {
      const found = await this.call(user, () => this.client.users.lookupByEmail({ email: user }));
      if (!found.user?.id)
        throw new DeliveryError(`slack: users_not_found (${user})`, {
          code: DeliveryErrorCode.NotFound,
          permanent: true,
        });
      id = found.user.id;
    }
    const opened = await this.call(user, () => this.client.conversations.open({ users: id }));
    const channel = opened.channel?.id;
    if (!channel)
      throw new DeliveryError(`slack: no DM channel (${user})`, {
        code: DeliveryErrorCode.Unknown,
        permanent: false,
      });
    return channel;
  }

  async verify(): Promise<string> {
    const me = await this.call('auth.test', () => this.client.auth.test());
    const user = oneLine(String(me.user ?? me.user_id ?? 'unknown'));
    const team = oneLine(String(me.team ?? me.team_id ?? 'unknown'));
    return `slack: ${user} in ${team}`;
  }

  close(): Promise<void> {
    this.closed ??= Promise.all([this.pacer.close(), this.charts.close()]).then(() => undefined);
    return this.closed;
  }

  private async call<T>(destination: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw failureOf(error, destination, this.timeoutMs);
    }
  }
}
