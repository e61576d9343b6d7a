/**
 * Retry with capped exponential backoff and full jitter, bounded both in attempts and in
 * total time, honouring the server's `Retry-After`. Time comes from an injected clock so
 * tests observe every wait without making it.
 */
import { backoffDelay, type RetryPolicy } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import { formatTimeLeft } from '../lib/duration.js';
import {
  RateLimitedError,
  type RequestContext,
  RetryableUpstreamError,
  UnavailableError,
} from './errors.js';

export { backoffDelay, type RetryPolicy } from '../lib/backoff.js';

/** Defaults for the upstream API: about a minute of trying, then the next sync's turn. */
export const defaultRetryPolicy = {
  attempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxElapsedMs: 60_000,
} as const satisfies RetryPolicy;

/**
 * Runs `attempt` until it succeeds, fails permanently, or the policy is spent. A spent
 * policy ends in `RateLimitedError` when the server kept answering 429 (so the caller
 * can honour its `Retry-After`), otherwise in `UnavailableError` wrapping the last error.
 */
export async function withRetry<T>(
  attempt: (n: number) => Promise<T>,
  options: {
    policy: RetryPolicy;
    clock: Clock;
    random: () => number;
    context: RequestContext;
    onRetry?: (error: RetryableUpstreamError, attempt: number, delayMs: number) => void;
    signal?: AbortSignal;
  },
): Promise<T> {
  const { policy, clock, context } = options;
  const started = clock.now().getTime();
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof RetryableUpstreamError)) throw error;
      const retryAfterMs = error.retryAfterMs;
      const delay = backoffDelay(policy, n, options.random, retryAfterMs);
      const elapsed = clock.now().getTime() - started;
      const spent =
        n >= policy.attempts || delay > policy.maxDelayMs || elapsed + delay > policy.maxElapsedMs;
      if (spent) throw exhausted(error, n, context, retryAfterMs);
      options.onRetry?.(error, n, delay);
      await clock.sleep(delay, options.signal);
    }
  }
}

function exhausted(
  last: RetryableUpstreamError,
  attempts: number,
  context: RequestContext,
  retryAfterMs: number | undefined,
): RetryableUpstreamError {
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const after =
    retryAfterMs === undefined ? '' : `; the API asked to wait ${formatTimeLeft(retryAfterMs)}`;
  if (last instanceof RateLimitedError) {
    return new RateLimitedError(`rate limited by the API after ${tries}${after}`, {
      context,
      status: last.status,
      apiMessages: last.apiMessages,
      retryAfterMs,
      cause: last,
    });
  }
  return new UnavailableError(`API unavailable after ${tries}: ${last.reason}${after}`, {
    context,
    status: last.status,
    apiMessages: last.apiMessages,
    attempts,
    retryAfterMs,
    cause: last,
  });
}
