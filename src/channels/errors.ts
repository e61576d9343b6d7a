/**
 * What an HTTP answer that is not a success means for a delivery, for the channels that
 * speak HTTP (webhooks, Discord, Slack's HTTP layer): its kind (`DeliveryErrorCode`) and
 * whether another attempt can help, the latter from the one classifier every HTTP caller
 * shares (`lib/http-status.ts`); and what a request that got no answer at all means.
 */
import { errorCode, errorName } from '../lib/error-text.js';
import { classifyStatus } from '../lib/http-status.js';
import { DeliveryError, DeliveryErrorCode } from './types.js';

/** Kinds of the statuses that have one of their own; the rest go by their class. */
const BY_STATUS: ReadonlyMap<number, DeliveryErrorCode> = new Map([
  [401, DeliveryErrorCode.Auth],
  [403, DeliveryErrorCode.Forbidden],
  [404, DeliveryErrorCode.NotFound],
  [408, DeliveryErrorCode.Timeout],
  [410, DeliveryErrorCode.NotFound],
  [413, DeliveryErrorCode.TooLarge],
  [429, DeliveryErrorCode.RateLimited],
]);

/** The kind of failure an HTTP `status` that is not a success stands for. */
export function codeForStatus(status: number): DeliveryErrorCode {
  const own = BY_STATUS.get(status);
  if (own) return own;
  return status >= 500 ? DeliveryErrorCode.ServerError : DeliveryErrorCode.Rejected;
}

/** Whether a channel should retry a delivery answered with `status` (never for a 2xx). */
export function retryableStatus(status: number): boolean {
  return classifyStatus(status) === 'retry';
}

/** undici's codes of a request called off here: a stop, or the channel closing. */
const CALLED_OFF = new Set([
  'UND_ERR_ABORT',
  'UND_ERR_ABORTED',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
]);

/** The kind of a request that got no answer: undici's timeouts, a stop, or the network. */
export function transportCode(error: unknown): DeliveryErrorCode {
  const code = errorCode(error);
  if (typeof code === 'string' && code.endsWith('_TIMEOUT')) return DeliveryErrorCode.Timeout;
  if (errorName(error) === 'AbortError' || CALLED_OFF.has(String(code)))
    return DeliveryErrorCode.Aborted;
  return DeliveryErrorCode.Network;
}

/**
 * A request to `platform` that got no answer (refused, reset, timed out, called off), as
 * the temporary failure it is: `webhook: ECONNREFUSED (https://hooks.example.com)`.
 * `where` is how the target may be shown. A `DeliveryError` (the attempt's own deadline)
 * is already one, and is returned as it is.
 */
export function transportFailure(platform: string, error: unknown, where: string): DeliveryError {
  if (error instanceof DeliveryError) return error;
  return new DeliveryError(`${platform}: ${errorCode(error) ?? errorName(error)} (${where})`, {
    code: transportCode(error),
    permanent: false,
    cause: error,
  });
}
