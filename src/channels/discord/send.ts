/**
 * The Discord channels, `discord` (a channel id) and `discord_dm` (a user id), over one
 * discord.js REST client. The client paces requests by Discord's per-route buckets
 * (`X-RateLimit-*`) and the global limit, and waits out a 429 itself when the wait is
 * short (at most `maxRateLimitWaitMs`); a longer one fails at once as a temporary
 * DeliveryError carrying `retryAfterMs`, so the dispatcher retries it later. The client
 * does not retry 5xx or network errors: those come back as temporary DeliveryErrors too.
 * 400, 401, 403 and 404 are permanent. Each message carries a nonce derived from its
 * alerts' keys with `enforce_nonce`, so a resend returns the message already posted.
 * An updated notice is posted as a reply to the first message for that notice, and the
 * message that showed the previous version is edited to say it was superseded.
 */
import { DiscordAPIError, HTTPError, RateLimitError, REST, Routes } from 'discord.js';
import { targetKey } from '../../domain/targets.js';
import { redactor } from '../../lib/redact.js';
import {
  DEFAULT_DELIVERY_TIMEOUT_MS,
  deadlineFor,
  deadlineReason,
  withDeadline,
} from '../deadline.js';
import { clip, oneLine } from '../text.js';
import type { Alert, Channel, ChannelDeps, Delivered, SendContext, ThreadRef } from '../types.js';
import { DeliveryError } from '../types.js';
import {
  type Embed,
  fitEmbeds,
  MAX_DIGEST,
  nonceFor,
  renderMessage,
  supersededEmbed,
} from './render.js';

export interface DiscordOptions {
  token: string;
  /** Base URL without the version (`https://discord.com/api`); a trailing `/v10` is dropped. */
  apiUrl?: string | undefined;
  /** Total time of one request, the answer's body included; default 30 s. */
  timeoutMs?: number;
  /** Longest rate-limit wait done in place; longer ones fail with `retryAfterMs`. Default 10 s. */
  maxRateLimitWaitMs?: number;
}

export interface DiscordChannels {
  discord: Channel<'discord'>;
  discord_dm: Channel<'discord_dm'>;
}

/** Where a notice's message is and what its embeds were, to edit it later. */
interface Posted {
  channel: string;
  message: string;
  index: number;
  embeds: Embed[];
}

const REMEMBERED = 1000;
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

/** Adds to a map, forgetting the oldest entries past `REMEMBERED`. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED) map.delete(map.keys().next().value!);
}

function parseRef(ref: ThreadRef | undefined): Posted | undefined {
  if (!ref?.channel || !ref.message) return undefined;
  try {
    const embeds = JSON.parse(ref.embeds ?? '[]') as Embed[];
    return { channel: ref.channel, message: ref.message, index: Number(ref.index ?? 0), embeds };
  } catch {
    return { channel: ref.channel, message: ref.message, index: 0, embeds: [] };
  }
}

/** The thread subject of an alert about a notice. */
function subjectOf(alert: Alert): string | undefined {
  const { kind, notice } = alert.payload;
  return notice && kind !== 'capacity' ? `notice:${notice.id}` : undefined;
}

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
  /** Thread key → the message showing the notice's latest version. */
  const latest = new Map<string, Posted>();
  /** Message id → its embeds as last edited. */
  const edited = new Map<string, Embed[]>();

  const scrub = redactor([token]);

  /** Any failure as a DeliveryError, its reason naming `where` and never the token. */
  function classify(err: unknown, where: string, signal?: AbortSignal): DeliveryError {
    if (err instanceof DeliveryError) return err;
    const fail = (reason: string, permanent: boolean, retryAfterMs?: number, cause?: unknown) =>
      new DeliveryError(clip(scrub(oneLine(reason)), 300), {
        permanent,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        ...(cause === undefined ? {} : { cause }),
      });
    if (err instanceof RateLimitError) {
      const ms = Math.ceil(Math.max(err.retryAfter, err.timeToReset));
      const scope = err.global ? 'global rate limit' : 'rate limited';
      return fail(`discord: 429 ${scope}, retry in ${Math.ceil(ms / 1000)}s (${where})`, false, ms);
    }
    if (err instanceof DiscordAPIError) {
      if (err.status === 401) unauthorized = true;
      const raw = (err.rawError as { message?: string }).message ?? 'error';
      const message = raw.replace(new RegExp(`^${err.status}: `), '');
      const detail = err.code === 50035 ? `: ${err.message.split('\n')[1] ?? ''}` : '';
      const code = typeof err.code === 'number' && err.code > 0 ? ` [${err.code}]` : '';
      const hint = err.status === 401 ? ', check DISCORD_BOT_TOKEN' : '';
      const text = `${message}${code}${detail}${hint}`;
      const permanent =
        err.status >= 400 && err.status < 500 && ![408, 425, 429].includes(err.status);
      return fail(`discord: ${err.status} ${text} (${where})`, permanent);
    }
    if (err instanceof HTTPError)
      return fail(`discord: ${err.status} ${err.message} (${where})`, false);
    if (signal?.aborted) return fail(`discord: aborted (${where})`, false);
    const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string } };
    if (e?.name === 'AbortError' || e?.name === 'TimeoutError') {
      return fail(`${deadlineReason('discord', timeoutMs)} (${where})`, false);
    }
    const code = e?.cause?.code ?? e?.code ?? e?.message ?? String(err);
    return fail(`discord: network error ${code} (${where})`, false, undefined, err);
  }

  async function call<T>(
    where: string,
    ctx: Pick<SendContext, 'signal' | 'deadline'> | undefined,
    fn: (signal?: AbortSignal) => Promise<unknown>,
  ) {
    if (!token || unauthorized) {
      const reason = token ? '401 Unauthorized, check' : 'no token, set';
      throw new DeliveryError(`discord: ${reason} DISCORD_BOT_TOKEN`, { permanent: true });
    }
    try {
      // The client's own timeout ends when the headers arrive; the deadline covers the
      // body too. The client adds an abort listener to a request's signal and never
      // removes it: the deadline gives each request a signal of its own, following the
      // caller's, so none pile up on that one.
      const deadline = deadlineFor('discord', ctx ?? {}, timeoutMs, where);
      return (await withDeadline(deadline, (signal) => fn(signal))) as T;
    } catch (err) {
      const failure = classify(err, where, ctx?.signal);
      log.debug(
        { reason: failure.reason, permanent: failure.permanent },
        'discord: request failed',
      );
      throw failure;
    }
  }

  function checkId(id: string, what: string): void {
    if (!SNOWFLAKE.test(id)) {
      const reason = `discord: invalid ${what} id "${clip(oneLine(id), 40)}" (a Discord ${what} id is a number)`;
      throw new DeliveryError(reason, { permanent: true });
    }
  }

  /** Greys out the messages that showed the previous versions of updated notices. */
  async function supersede(previous: Posted[], posted: string, ctx: SendContext) {
    const byMessage = new Map<string, { channel: string; embeds: Embed[]; indices: number[] }>();
    for (const p of previous) {
      if (p.message === posted) continue;
      const entry = byMessage.get(p.message) ?? {
        channel: p.channel,
        embeds: edited.get(p.message) ?? p.embeds,
        indices: [],
      };
      entry.indices.push(p.index);
      byMessage.set(p.message, entry);
    }
    for (const [message, { channel, embeds, indices }] of byMessage) {
      if (embeds.length === 0) continue;
      const next = fitEmbeds(embeds.map((e, i) => (indices.includes(i) ? supersededEmbed(e) : e)));
      const body = { embeds: next, allowed_mentions: { parse: [] } };
      try {
        await call(`channel ${channel}`, ctx, (scoped) =>
          rest.patch(Routes.channelMessage(channel, message), { body, signal: scoped }),
        );
        remember(edited, message, next);
      } catch (err) {
        const reason = err instanceof DeliveryError ? err.reason : 'discord: edit failed';
        log.warn({ message, reason }, `discord: could not mark message superseded: ${reason}`);
      }
    }
  }

  /** Posts one message for `alerts` in `channel`, threading and superseding as needed. */
  async function deliver(
    channel: string,
    target: string,
    where: string,
    alerts: readonly Alert[],
    ctx: SendContext,
  ): Promise<Delivered> {
    if (alerts.length === 0 || alerts.length > MAX_DIGEST) {
      throw new DeliveryError(`discord: ${alerts.length} alerts in one message`, {
        permanent: true,
      });
    }
    const message = renderMessage(alerts, ctx.now);
    const subjects = alerts.map(subjectOf);
    const refs = subjects.map((s) => (s ? parseRef(ctx.threads.get(target, s)) : undefined));
    const replyTo = alerts
      .map((a, i) =>
        a.payload.state === 'updated' || a.payload.kind === 'deadline' ? refs[i] : undefined,
      )
      .find((r) => r?.channel === channel);
    const body = {
      ...message,
      nonce: nonceFor(alerts),
      enforce_nonce: true,
      ...(replyTo
        ? { message_reference: { message_id: replyTo.message, fail_if_not_exists: false } }
        : {}),
    };
    const sent = await call<{ id: string }>(where, ctx, (scoped) =>
      rest.post(Routes.channelMessages(channel), { body, signal: scoped }),
    );
    const previous: Posted[] = [];
    alerts.forEach((alert, index) => {
      const subject = subjects[index];
      const { kind, state } = alert.payload;
      if (!subject || kind !== 'notice' || index >= message.embeds.length) return;
      const key = `${target}|${subject}`;
      const before = latest.get(key) ?? refs[index];
      if (state === 'updated' && before?.channel === channel) previous.push(before);
      const now: Posted = { channel, message: sent.id, index, embeds: message.embeds };
      remember(latest, key, now);
      if (!refs[index]) {
        const ref = {
          channel,
          message: sent.id,
          index: String(index),
          embeds: JSON.stringify(message.embeds),
        };
        ctx.threads.set(target, subject, ref);
      }
    });
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
        return deliver(target.channel, targetKey(target), where, alerts, ctx);
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
          return await deliver(channel, targetKey(target), `user ${target.user}`, alerts, ctx);
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
