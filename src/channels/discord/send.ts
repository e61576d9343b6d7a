/**
 * The Discord channels, `discord` (a channel id) and `discord_dm` (a user id), over one
 * discord.js REST client (`@discordjs/rest`). The client paces requests by Discord's per-route buckets
 * (`X-RateLimit-*`) and the global limit, and waits out a 429 itself when the wait is
 * short (at most `maxRateLimitWaitMs`); a longer one fails at once as a temporary
 * DeliveryError carrying `retryAfterMs`, so the dispatcher retries it later. The client
 * does not retry 5xx or network errors: those come back as temporary DeliveryErrors too.
 * 400, 401, 403 and 404 are permanent. Each message carries a nonce derived from its
 * alerts' keys with `enforce_nonce`, so a resend returns the message already posted.
 * An updated notice is posted as a reply to the first message for that notice, and the
 * message that showed the previous version is edited to say it was superseded. Messages
 * to channels carry components when the Discord app answers them (`interactive`), and a
 * post refused because the channel is gone or closed to the bot is reported through
 * `onChannelGone` besides failing as usual. A capacity alert's charts are files of its
 * message; where the bot may not attach files, the message goes again without them.
 */

import { type RawFile, REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { discordPostedDetail } from '../../domain/posted-message.js';
import { targetKey } from '../../domain/targets.js';
import type { Logger } from '../../lib/logger.js';
import { redactor } from '../../lib/redact.js';
import { mergeCapacity } from '../capacity.js';
import { channelGoneReporter, type OnChannelGone } from '../channel-gone.js';
import { type ChartImage, chartsFor, chartsOf } from '../charts.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, deadlineFor, withDeadline } from '../deadline.js';
import { clip, oneLine } from '../text.js';
import type { Alert, Channel, ChannelDeps, Delivered, SendContext } from '../types.js';
import { DeliveryError, DeliveryErrorCode } from '../types.js';
import { goneReason } from './channel-gone.js';
import { noToken, toDeliveryError } from './errors.js';
import { dropFileImages, type Extras, LeftOut, missingPermissions } from './left-out.js';
import type { Embed } from './limits.js';
import { MAX_DIGEST, nonceFor, renderMessage } from './render.js';
import { NoticeMessages, type Posted, remember } from './threads.js';

export interface DiscordOptions {
  token: string;
  /** Base URL without the version (`https://discord.com/api`); a trailing `/v10` is dropped. */
  apiUrl?: string | undefined;
  /** Total time of one request, the answer's body included; default 30 s. */
  timeoutMs?: number;
  /** Longest rate-limit wait done in place; longer ones fail with `retryAfterMs`. Default 10 s. */
  maxRateLimitWaitMs?: number;
  /**
   * Components on alerts posted to channels (not DMs): on when the Discord app runs to
   * answer their clicks.
   */
  interactive?: boolean | undefined;
  /**
   * Told when a post to a channel is refused because the channel no longer takes the
   * bot's messages (10003 Unknown Channel, 50001 Missing Access, 50013 Missing
   * Permissions): `reason` says so in words and names the code, `channel` is the
   * target's channel id. A message refused only for its files is not reported: it is
   * posted again without them, and only a refusal of that one is.
   */
  onChannelGone?: OnChannelGone | undefined;
}

export interface DiscordChannels {
  discord: Channel<'discord'>;
  discord_dm: Channel<'discord_dm'>;
}

/** A Discord id: a number of up to 20 digits. */
const SNOWFLAKE = /^\d{1,20}$/;

/**
 * Global `fetch` for the REST client, with a 429's body made to agree with its headers:
 * Discord's `retry_after` (seconds, fractional) and `global` flag become `Retry-After`
 * and `X-RateLimit-Global`, and a 429 that says nothing waits one second.
 */
async function request(url: string, init: unknown): Promise<Response> {
  const res = await fetch(url, init as RequestInit);
  if (res.status !== 429) return res;
  const text = await res.text();
  let body: { retry_after?: unknown; global?: unknown } = {};
  try {
    body = JSON.parse(text) ?? {};
  } catch {}
  const headers = new Headers(res.headers);
  const fromBody = typeof body.retry_after === 'number' ? body.retry_after : Number.NaN;
  const seconds = Number.isFinite(fromBody) ? fromBody : Number(headers.get('retry-after'));
  headers.set('retry-after', String(Number.isFinite(seconds) && seconds > 0 ? seconds : 1));
  if (body.global === true) headers.set('x-ratelimit-global', 'true');
  return new Response(text, { status: 429, headers });
}

/** Creates both Discord channels around one REST client. */
export function createDiscordChannels(options: DiscordOptions, deps: ChannelDeps): DiscordChannels {
  const sender = new DiscordSender(options, deps);
  const verify = () => sender.verify();
  const close = () => sender.close();
  return {
    discord: {
      kind: 'discord',
      maxDigest: MAX_DIGEST,
      async send(target, alerts, ctx) {
        checkId(target.channel, 'channel');
        const where = `channel ${target.channel}`;
        return sender.deliver(target.channel, targetKey(target), where, alerts, ctx, true);
      },
      verify,
      close,
    },
    discord_dm: {
      kind: 'discord_dm',
      maxDigest: MAX_DIGEST,
      send: (target, alerts, ctx) => sender.deliverDm(target, alerts, ctx),
      verify,
      close,
    },
  };
}

/**
 * The charts as files of the message, each alert's first one shown as the image of its
 * embed (`attachment://…`, Discord's way to show a file of the message in an embed); the
 * embeds are changed in place. `shown[i]` is the alert of `embeds[i]`.
 */
function withChartImages(
  embeds: Embed[],
  shown: readonly Alert[],
  charts: readonly ChartImage[],
): RawFile[] {
  embeds.forEach((e, i) => {
    const alert = shown[i];
    const first = alert ? chartsOf(charts, alert.payload)[0] : undefined;
    if (first) e.image = { url: `attachment://${first.name}` };
  });
  return charts.map((c) => ({ name: c.name, data: Buffer.from(c.png), contentType: 'image/png' }));
}

/** Refuses, for good, an id that cannot be Discord's. */
function checkId(id: string, what: string): void {
  if (!SNOWFLAKE.test(id)) {
    const reason = `discord: invalid ${what} id "${clip(oneLine(id), 40)}" (a Discord ${what} id is a number)`;
    throw new DeliveryError(reason, { code: DeliveryErrorCode.Rejected, permanent: true });
  }
}

/**
 * The REST client: Discord's per-route and global pacing, no retries of its own, a 429
 * waited out in place only when short (`maxWaitMs`).
 */
function restClient(options: DiscordOptions, timeoutMs: number, log: Logger): REST {
  const maxWaitMs = options.maxRateLimitWaitMs ?? 10_000;
  const api = (options.apiUrl ?? 'https://discord.com/api')
    .replace(/\/+$/, '')
    .replace(/\/v\d+$/, '');
  const rest = new REST({
    api,
    version: '10',
    retries: 0,
    timeout: timeoutMs,
    globalRequestsPerSecond: 50,
    rejectOnRateLimit: (limit) => Math.max(limit.retryAfter, limit.timeToReset) > maxWaitMs,
    makeRequest: request as never,
  }).setToken(options.token);
  rest.on('rateLimited', (limit) =>
    log.debug(
      { route: limit.route, global: limit.global, wait_ms: limit.timeToReset },
      'discord: waiting for rate limit',
    ),
  );
  return rest;
}

/**
 * What both channels share: the REST client, the DM channels opened so far, the first
 * message of each notice, and the steps of a send.
 */
class DiscordSender {
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private readonly rest: REST;
  private readonly dmChannels = new Map<string, string>();
  private readonly notices = new NoticeMessages();
  private readonly scrub: (text: string) => string;
  /** Tells `onChannelGone`, whose failure never changes the send's outcome. */
  private readonly channelGone: ReturnType<typeof channelGoneReporter>;
  /** Channels whose messages go without their files, and the warning that says so. */
  private readonly leftOut: LeftOut;
  /** Discord refused the token: no later request can do better until a restart. */
  private unauthorized = false;

  constructor(
    private readonly options: DiscordOptions,
    private readonly deps: ChannelDeps,
  ) {
    this.log = deps.logger.child({ channel: 'discord' });
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
    this.rest = restClient(options, this.timeoutMs, this.log);
    this.scrub = redactor([options.token]);
    this.channelGone = channelGoneReporter('Discord', options.onChannelGone, this.log);
    this.leftOut = new LeftOut(this.log);
  }

  /**
   * Posts one message for `alerts` in `channel`: rendered, as a reply to the first
   * message of the notice it updates (`messageBody`), posted (`post`), then the messages
   * that showed earlier versions greyed out (`supersede`). `toChannel`: `channel` is a
   * target's channel (not a DM), whose post may carry components and whose refusal may
   * say it is gone.
   */
  async deliver(
    channel: string,
    target: string,
    where: string,
    alerts: readonly Alert[],
    ctx: SendContext,
    toChannel: boolean,
  ): Promise<Delivered> {
    if (alerts.length === 0 || alerts.length > MAX_DIGEST) {
      throw new DeliveryError(`discord: ${alerts.length} alerts in one message`, {
        code: DeliveryErrorCode.Rejected,
        permanent: true,
      });
    }
    const message = renderMessage(alerts, ctx.now, {
      interactive: toChannel && this.options.interactive === true,
    });
    const first = await this.notices.firstMessages(target, alerts, ctx.threads);
    const replyTo = this.notices.replyTo(alerts, first, channel);
    const body = {
      ...message,
      nonce: nonceFor(alerts),
      enforce_nonce: true,
      ...(replyTo
        ? { message_reference: { message_id: replyTo.message, fail_if_not_exists: false } }
        : {}),
    };
    const charts = await chartsFor(
      mergeCapacity(alerts).map((a) => a.payload),
      this.deps.charts,
      this.log,
    );
    const files = withChartImages(message.embeds, mergeCapacity(alerts), charts);
    const sent = await this.post(channel, where, body, ctx, toChannel, files);
    const previous = await this.notices.posted(
      { target, channel, id: sent.id, embeds: message.embeds },
      alerts,
      first,
      ctx.threads,
    );
    if (previous.length > 0) await this.supersede(previous, sent.id, ctx);
    const reply = replyTo && !sent.without?.reply ? replyTo.message : undefined;
    this.log.debug({ target, message: sent.id, alerts: alerts.length }, 'discord: message posted');
    return { detail: discordPostedDetail(channel, sent.id, reply) };
  }

  /** Sends to a user's DM channel, opened first; a DM refused for good is opened again next time. */
  async deliverDm(
    target: { kind: 'discord_dm'; user: string },
    alerts: readonly Alert[],
    ctx: SendContext,
  ): Promise<Delivered> {
    checkId(target.user, 'user');
    const channel = await this.dmChannel(target.user, ctx);
    try {
      const where = `user ${target.user}`;
      return await this.deliver(channel, targetKey(target), where, alerts, ctx, false);
    } catch (err) {
      if (err instanceof DeliveryError && err.permanent) this.dmChannels.delete(target.user);
      throw err;
    }
  }

  /**
   * Posts a message body to `channel`; a target channel that refuses it as gone is
   * reported. A message with extras (chart files, a reply to an earlier message) refused
   * for want of a permission (50013) goes again without them, and without the images
   * that show the files (see `left-out.ts`): only a refusal of that one says the channel
   * is gone.
   */
  private async post(
    channel: string,
    where: string,
    body: Record<string, unknown> & { embeds: Embed[] },
    ctx: SendContext,
    toChannel: boolean,
    files: RawFile[] = [],
  ): Promise<{ id: string; without?: Extras }> {
    const extras = { chart: files.length > 0, reply: body.message_reference !== undefined };
    let extrasRefused = false;
    try {
      const sent = await this.call<{ id: string }>(where, ctx, (scoped) =>
        this.rest
          .post(Routes.channelMessages(channel), {
            body,
            ...(extras.chart ? { files } : {}),
            signal: scoped,
          })
          .catch((err) => {
            extrasRefused = (extras.chart || extras.reply) && missingPermissions(err);
            const gone = toChannel && !extrasRefused ? goneReason(err) : undefined;
            if (gone) this.channelGone(channel, gone);
            throw err;
          }),
      );
      this.leftOut.accepted(channel, extras);
      return sent;
    } catch (err) {
      if (!extrasRefused) throw err;
    }
    dropFileImages(body.embeds);
    const { message_reference: _reply, ...plain } = body;
    const sent = await this.post(channel, where, plain, ctx, toChannel);
    this.leftOut.left(channel, where, toChannel, extras);
    return { ...sent, without: extras };
  }

  /** Greys out the messages that showed the previous versions of updated notices. */
  private async supersede(previous: Posted[], posted: string, ctx: SendContext): Promise<void> {
    for (const edit of this.notices.supersede(previous, posted)) {
      const { channel, message } = edit;
      const body = { embeds: edit.embeds, allowed_mentions: { parse: [] } };
      try {
        await this.call(`channel ${channel}`, ctx, (scoped) =>
          this.rest.patch(Routes.channelMessage(channel, message), { body, signal: scoped }),
        );
        this.notices.edited(edit);
      } catch (err) {
        const reason = err instanceof DeliveryError ? err.reason : 'discord: edit failed';
        this.log.warn({ message, reason }, `discord: could not mark message superseded: ${reason}`);
      }
    }
  }

  /** The DM channel with a user, opened once and then remembered. */
  private async dmChannel(user: string, ctx: SendContext): Promise<string> {
    const known = this.dmChannels.get(user);
    if (known) return known;
    const opened = await this.call<{ id: string }>(`user ${user}`, ctx, (scoped) =>
      this.rest.post(Routes.userChannels(), { body: { recipient_id: user }, signal: scoped }),
    );
    remember(this.dmChannels, user, opened.id);
    return opened.id;
  }

  async verify(): Promise<string> {
    const me = await this.call<{ username: string; discriminator?: string }>(
      'users/@me',
      undefined,
      () => this.rest.get(Routes.user()),
    );
    const tag = me.discriminator && me.discriminator !== '0' ? `#${me.discriminator}` : '';
    return `discord: ${me.username}${tag}`;
  }

  async close(): Promise<void> {
    this.rest.clearHashSweeper();
    this.rest.clearHandlerSweeper();
  }

  /** One request within the attempt's deadline; any failure as a `DeliveryError`. */
  private async call<T>(
    where: string,
    ctx: Pick<SendContext, 'signal' | 'deadline'> | undefined,
    fn: (signal?: AbortSignal) => Promise<unknown>,
  ): Promise<T> {
    const { token } = this.options;
    if (!token || this.unauthorized) throw noToken(Boolean(token));
    try {
      // The client's own timeout ends when the headers arrive; the deadline covers the
      // body too. The client adds an abort listener to a request's signal and never
      // removes it: the deadline gives each request a signal of its own, following the
      // caller's, so none pile up on that one.
      const deadline = deadlineFor(
        'discord',
        ctx ?? {},
        { ms: this.timeoutMs, clock: this.deps.deadlineClock },
        where,
      );
      return (await withDeadline(deadline, (signal) => fn(signal))) as T;
    } catch (err) {
      const aborted = ctx?.signal?.aborted;
      const failure = toDeliveryError(err, {
        where,
        timeoutMs: this.timeoutMs,
        scrub: this.scrub,
        aborted,
      });
      if (failure.code === DeliveryErrorCode.Auth) this.unauthorized = true;
      this.log.debug(
        { reason: failure.reason, permanent: failure.permanent },
        'discord: request failed',
      );
      throw failure;
    }
  }
}
