/**
 * What becomes of a delivery whose attempt failed: dead, or due again after a backoff.
 * A permanent failure is dead at once with its reason. A temporary one is retried with
 * capped exponential backoff and full jitter, never sooner than a second and never sooner
 * than the platform's `Retry-After`, until the delivery is older than its maximum age;
 * a platform asking for a wait that ends past that age is given up on at once, since
 * retrying would either go against what it asked or keep the alert beyond its age.
 * Pure: time and chance come in as arguments.
 */
import { backoffDelay, RETRY_AFTER_CEILING_MS, type RetryPolicy } from '../lib/backoff.js';
import { formatDuration } from '../lib/duration.js';

/** Never sooner than this: full jitter can draw 0, and a refusing target must not be hammered. */
export const MIN_RETRY_MS = 1_000;

/** The failure to decide on, and how old the deliveries it concerns are. */
export interface FailedAttempt {
  /** The failure's reason as it is recorded (secrets removed). */
  reason: string;
  permanent: boolean;
  /** What the platform asked to wait, in milliseconds. */
  retryAfterMs: number | undefined;
  /** Now, in clock milliseconds. */
  nowMs: number;
  /** When the oldest of the deliveries was decided, in clock milliseconds. */
  oldestMs: number;
  /** The number of the attempt that failed, 1 for the first. */
  attempt: number;
}

/** How long delivery keeps trying, and how it spaces the attempts. */
export interface DeliveryRetryPolicy {
  /** A delivery failing temporarily this long after it was decided goes dead. */
  maxAgeMs: number;
  retry: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;
}

/** Dead, with the reason to record; or due again after `delayMs`. */
export type RetryDecision = { dead: true; why: string } | { dead: false; delayMs: number };

/** Decides whether a failed attempt is retried, and when; `random` draws the jitter. */
export function decideRetry(
  failed: FailedAttempt,
  policy: DeliveryRetryPolicy,
  random: () => number,
): RetryDecision {
  const { reason, nowMs, oldestMs, retryAfterMs: asked } = failed;
  if (failed.permanent) return { dead: true, why: reason };
  const age = formatDuration(policy.maxAgeMs);
  if (nowMs - oldestMs >= policy.maxAgeMs)
    return { dead: true, why: `gave up after ${age}: ${reason}` };
  if (asked !== undefined && nowMs + asked > oldestMs + policy.maxAgeMs) {
    const wait = formatDuration(Math.min(asked, RETRY_AFTER_CEILING_MS));
    return {
      dead: true,
      why: `gave up: asked to wait ${wait}, past the maximum age of ${age}: ${reason}`,
    };
  }
  const backoff = backoffDelay(
    {
      ...policy.retry,
      attempts: Number.POSITIVE_INFINITY,
      maxElapsedMs: policy.maxAgeMs,
    },
    failed.attempt,
    random,
    asked,
  );
  return { dead: false, delayMs: Math.max(MIN_RETRY_MS, backoff) };
}
