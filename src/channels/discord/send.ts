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
 * `onChannelGone` besides failing as usual.
 */
import { REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { targetKey } from '../../domain/targets.js';
import { redactor } from '../../lib/redact.js';
import { channelGoneReporter, type OnChannelGone } from '../channel-gone.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, deadlineFor, withDeadline } from '../deadline.js';
import { clip, oneLine } from '../text.js';
import type { Alert, Channel, ChannelDeps, Delivered, SendContext } from '../types.js';
import { DeliveryError, DeliveryErrorCode } from '../types.js';
import { goneReason } from './channel-gone.js';
import { noToken, toDeliveryError } from './errors.js';
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
   * target's channel id.
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
  const log = deps.logger.child({ channel: 'discord' });
  const { token } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
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
  }).setToken(token);
  rest.on('rateLimited', (limit) =>
    log.debug(
      { route: limit.route, global: limit.global, wait_ms: limit.timeToReset },
      'discord: waiting for rate limit',
    ),
  );
  let unauthorized = false;
  const dmChannels = new Map<string, string>();
  const notices = new NoticeMessages();
  const scrub = redactor([token]);

  async function call<T>(
    where: string,
    ctx: Pick<SendContext, 'signal' | 'deadline'> | undefined,
    fn: (signal?: AbortSignal) => Promise<unknown>,
  ) {
    if (!token || unauthorized) throw noToken(Boolean(token));
    try {
      // The client's own timeout ends when the headers arrive; the deadline covers the
      // body too. The client adds an abort listener to a request's signal and never
      // removes it: the deadline gives each request a signal of its own, following the
      // caller's, so none pile up on that one.
      const deadline = deadlineFor(
        'discord',
        ctx ?? {},
        { ms: timeoutMs, clock: deps.deadlineClock },
        where,
      );
      return (await withDeadline(deadline, (signal) => fn(signal))) as T;
    } catch (err) {
      const aborted = ctx?.signal?.aborted;
      const failure = toDeliveryError(err, { where, timeoutMs, scrub, aborted });
      // Discord refused the token: no later request can do better until a restart.
      if (failure.code === DeliveryErrorCode.Auth) unauthorized = true;
      log.debug(
        { reason: failure.reason, permanent: failure.permanent },
        'discord: request failed',
      );
      throw failure;
    }
  }

  /** Tells `onChannelGone`, whose failure never changes the send's outcome. */
  const channelGone = channelGoneReporter('Discord', options.onChannelGone, log);

  function checkId(id: string, what: string): void {
    if (!SNOWFLAKE.test(id)) {
      const reason = `discord: invalid ${what} id "${clip(oneLine(id), 40)}" (a Discord ${what} id is a number)`;
      throw new DeliveryError(reason, { code: DeliveryErrorCode.Rejected, permanent: true });
    }
  }

  /** Greys out the messages that showed the previous versions of updated notices. */
  async function supersede(previous: Posted[], posted: string, ctx: SendContext) {
    for (const edit of notices.supersede(previous, posted)) {
      const { channel, message } = edit;
      const body = { embeds: edit.embeds, allowed_mentions: { parse: [] } };
      try {
        await call(`channel ${channel}`, ctx, (scoped) =>
          rest.patch(Routes.channelMessage(channel, message), { body, signal: scoped }),
        );
        notices.edited(edit);
      } catch (err) {
        const reason = err instanceof DeliveryError ? err.reason : 'discord: edit failed';
        log.warn({ message, reason }, `discord: could not mark message superseded: ${reason}`);
      }
    }
  }

  /**
   * Posts one message for `alerts` in `channel`, threading and superseding as needed;
   * `toChannel`: `channel` is a target's channel (not a DM), whose post may carry
   * components and whose refusal may say it is gone.
   */
  async function deliver(
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
      interactive: toChannel && options.interactive === true,
    });
    const first = notices.firstMessages(target, alerts, ctx.threads);
    const replyTo = notices.replyTo(alerts, first, channel);
    const body = {
      ...message,
      nonce: nonceFor(alerts),
      enforce_nonce: true,
      ...(replyTo
        ? { message_reference: { message_id: replyTo.message, fail_if_not_exists: false } }
        : {}),
    };
    const sent = await call<{ id: string }>(where, ctx, (scoped) =>
      rest.post(Routes.channelMessages(channel), { body, signal: scoped }).catch((err) => {
        const gone = toChannel ? goneReason(err) : undefined;
        if (gone) channelGone(channel, gone);
        throw err;
      }),
    );
    const previous = notices.posted(
      { target, channel, id: sent.id, embeds: message.embeds },
      alerts,
      first,
      ctx.threads,
    );
    if (previous.length > 0) await supersede(previous, sent.id, ctx);
    const reply = replyTo ? ` reply_to=${replyTo.message}` : '';
    log.debug({ target, message: sent.id, alerts: alerts.length }, 'discord: message posted');
    return { detail: `ok channel=${channel} message=${sent.id}${reply}` };
  }

  /** The DM channel with a user, opened once and then remembered. */
  async function dmChannel(user: string, ctx: SendContext): Promise<string> {
    const known = dmChannels.get(user);
    if (known) return known;
    const opened = await call<{ id: string }>(`user ${user}`, ctx, (scoped) =>
      rest.post(Routes.userChannels(), { body: { recipient_id: user }, signal: scoped }),
    );
    remember(dmChannels, user, opened.id);
    return opened.id;
  }

  async function verify(): Promise<string> {
    const me = await call<{ username: string; discriminator?: string }>(
      'users/@me',
      undefined,
      () => rest.get(Routes.user()),
    );
    const tag = me.discriminator && me.discriminator !== '0' ? `#${me.discriminator}` : '';
    return `discord: ${me.username}${tag}`;
  }

  async function close(): Promise<void> {
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  }

  return {
    discord: {
      kind: 'discord',
      maxDigest: MAX_DIGEST,
      async send(target, alerts, ctx) {
        checkId(target.channel, 'channel');
        const where = `channel ${target.channel}`;
        return deliver(target.channel, targetKey(target), where, alerts, ctx, true);
      },
      verify,
      close,
    },
    discord_dm: {
      kind: 'discord_dm',
      maxDigest: MAX_DIGEST,
      async send(target, alerts, ctx) {
        checkId(target.user, 'user');
        const channel = await dmChannel(target.user, ctx);
        try {
          const where = `user ${target.user}`;
          return await deliver(channel, targetKey(target), where, alerts, ctx, false);
        } catch (err) {
          if (err instanceof DeliveryError && err.permanent) dmChannels.delete(target.user);
          throw err;
        }
      },
      verify,
      close,
    },
  };
}
