/**
 * Capped exponential backoff with full jitter: how long to wait before trying again,
 * unless the other side said how long (`Retry-After`). Used for the upstream API and
 * for deliveries.
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
  if (retryAfterMs !== undefined) return retryAfterMs;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/** Reads `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: Date,
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.round(Number(text.trim()) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
