/**
 * Discord REST failures as `DeliveryError`s. A rate limit too long to wait out in place
 * is temporary and carries the wait; an API error goes by its HTTP status, through the
 * classifier every HTTP caller shares (400, 401, 403 and 404 permanent; 408, 425, 429 and
 * 5xx temporary); a timeout, a stop or a network error is temporary. Reasons name where
 * the request went and Discord's own message and code, never the token.
 */

import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import { errorCause, errorCode, errorMessage, errorName } from '../../lib/error-text.js';
import { deadlineReason } from '../deadline.js';
import { codeForStatus, retryableStatus } from '../errors.js';
import { clip, oneLine } from '../text.js';
import { DeliveryError, DeliveryErrorCode } from '../types.js';

/** Longest reason, in characters. */
const REASON_MAX = 300;

/** What classifying a failure needs besides the failure. */
export interface FailureContext {
  /** Where the request went, for the reason: `channel 123`, `user 456`, `users/@me`. */
  where: string;
  /** The request's time limit, named in the reason of one that ran out. */
  timeoutMs: number;
  /** Removes the token from text. */
  scrub: (text: string) => string;
  /** The caller called the request off (pipewatch stopping). */
  aborted?: boolean | undefined;
}

/** Any failure of a Discord request as a `DeliveryError` whose reason names `ctx.where`. */
export function toDeliveryError(err: unknown, ctx: FailureContext): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const { where } = ctx;
  const fail = (
    reason: string,
    code: DeliveryErrorCode,
    permanent: boolean,
    retryAfterMs?: number,
    cause?: unknown,
  ) =>
    new DeliveryError(clip(ctx.scrub(oneLine(reason)), REASON_MAX), {
      code,
      permanent,
      retryAfterMs,
      ...(cause === undefined ? {} : { cause }),
    });
  if (err instanceof RateLimitError) {
    const ms = Math.ceil(Math.max(err.retryAfter, err.timeToReset));
    const scope = err.global ? 'global rate limit' : 'rate limited';
    const reason = `discord: 429 ${scope}, retry in ${Math.ceil(ms / 1000)}s (${where})`;
    return fail(reason, DeliveryErrorCode.RateLimited, false, ms);
  }
  if (err instanceof DiscordAPIError) {
    const said: object = err.rawError;
    const raw = 'message' in said && typeof said.message === 'string' ? said.message : 'error';
    const message = raw.replace(new RegExp(`^${err.status}: `), '');
    const detail = err.code === 50035 ? `: ${err.message.split('\n')[1] ?? ''}` : '';
    const own = typeof err.code === 'number' && err.code > 0 ? ` [${err.code}]` : '';
    const hint = err.status === 401 ? ', check DISCORD_BOT_TOKEN' : '';
    const text = `${message}${own}${detail}${hint}`;
    const permanent = !retryableStatus(err.status);
    return fail(`discord: ${err.status} ${text} (${where})`, codeForStatus(err.status), permanent);
  }
  if (err instanceof HTTPError) {
    const permanent = !retryableStatus(err.status);
    return fail(
      `discord: ${err.status} ${err.message} (${where})`,
      codeForStatus(err.status),
      permanent,
    );
  }
  if (ctx.aborted) return fail(`discord: aborted (${where})`, DeliveryErrorCode.Aborted, false);
  const name = errorName(err);
  if (name === 'AbortError' || name === 'TimeoutError') {
    const reason = `${deadlineReason('discord', ctx.timeoutMs)} (${where})`;
    return fail(reason, DeliveryErrorCode.Timeout, false);
  }
  const code = errorCode(errorCause(err)) ?? errorCode(err) ?? errorMessage(err);
  return fail(
    `discord: network error ${code} (${where})`,
    DeliveryErrorCode.Network,
    false,
    undefined,
    err,
  );
}

/** The failure of a request made without a token, or with one Discord already refused. */
export function noToken(refused: boolean): DeliveryError {
  const reason = refused ? '401 Unauthorized, check' : 'no token, set';
  return new DeliveryError(`discord: ${reason} DISCORD_BOT_TOKEN`, {
    code: refused ? DeliveryErrorCode.Auth : DeliveryErrorCode.NotConfigured,
    permanent: true,
  });
}
