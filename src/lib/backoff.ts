/**
 * Capped exponential backoff with full jitter: how long to wait before trying again,
 * unless the other side said how long (`Retry-After`). Used for the upstream API and
 * for deliveries, and without jitter for a feed after a failed sync.
 */

/** How hard to try before giving up. */
export interface RetryPolicy {
  /** Total attempts, the first included. */
  attempts: number;
  /** Backoff before the second attempt (doubles each time, before jitter). */
  baseDelayMs: number;
  /** No single wait exceeds this, `Retry-After` included. */
  maxDelayMs: number;
  /** No retry starts after this much time has passed since the first attempt. */
  maxElapsedMs: number;
}

/** The wait before attempt `attempt + 1` (attempt counts from 1). */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  random: () => number,
  retryAfterMs?: number,
): number {
  // What the other side asked, held to a finite bound so that a time computed from it is a date.
  if (retryAfterMs !== undefined)
    return Number.isNaN(retryAfterMs)
      ? 0
      : Math.min(Math.max(0, retryAfterMs), RETRY_AFTER_CEILING_MS);
  return Math.round(random() * exponentialDelay(policy.baseDelayMs, attempt, policy.maxDelayMs));
}

/**
 * `baseMs` before the second attempt, doubling with each one after, never above `capMs`
 * (attempt counts from 1): the one growth rule of every retry in pipewatch, jittered by
 * `backoffDelay` and used as it is by the feeds' scheduler.
 */
export function exponentialDelay(baseMs: number, attempt: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** (attempt - 1));
}

/**
 * The longest `Retry-After` read as given (a century): a larger number, or one that is not
 * finite, is read as this, so that every time computed from it is still a valid date.
 */
export const RETRY_AFTER_CEILING_MS = 100 * 365 * 86_400_000;

/** Reads `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: Date,
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  const ms = /^\d+(\.\d+)?$/.test(text.trim())
    ? Math.round(Number(text.trim()) * 1000)
    : Date.parse(text) - now.getTime();
  if (Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(0, ms), RETRY_AFTER_CEILING_MS);
}
