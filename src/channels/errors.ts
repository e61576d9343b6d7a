/**
 * What an HTTP answer that is not a success means for a delivery, for the channels that
 * speak HTTP (webhooks, Discord, Slack's HTTP layer): its kind (`DeliveryErrorCode`) and
 * whether another attempt can help, the latter from the one classifier every HTTP caller
 * shares (`lib/http-status.ts`).
 */
import { classifyStatus } from '../lib/http-status.js';
import { DeliveryErrorCode } from './types.js';

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
