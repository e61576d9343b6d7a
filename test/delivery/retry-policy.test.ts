/** The dead-or-retry decision for a failed delivery attempt, by table. */
import { describe, expect, it } from 'vitest';
import { decideRetry, type FailedAttempt } from '../../src/delivery/retry-policy.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const policy = { maxAgeMs: 6 * HOUR, retry: { baseDelayMs: 5_000, maxDelayMs: 15 * MIN } };
const REASON = 'webhook: HTTP 503 (https://hooks.example.com)';

/** A failure `ageMs` after the delivery was decided. */
function failed(over: Partial<FailedAttempt> & { ageMs?: number } = {}): FailedAttempt {
  const { ageMs = 0, ...rest } = over;
  return {
    reason: REASON,
    permanent: false,
    retryAfterMs: undefined,
    nowMs: 1_000_000_000 + ageMs,
    oldestMs: 1_000_000_000,
    attempt: 1,
    ...rest,
  };
}

describe('decideRetry', () => {
  it.each([
    ['a permanent failure, however young', failed({ permanent: true }), REASON],
    [
      'a permanent failure past the maximum age keeps its own reason',
      failed({ permanent: true, ageMs: 7 * HOUR }),
      REASON,
    ],
    [
      'a temporary failure at the maximum age',
      failed({ ageMs: 6 * HOUR }),
      `gave up after 6h: ${REASON}`,
    ],
    [
      'a temporary failure past the maximum age, even with a short Retry-After',
      failed({ ageMs: 7 * HOUR, retryAfterMs: 1000 }),
      `gave up after 6h: ${REASON}`,
    ],
    [
      'a Retry-After ending past the maximum age',
      failed({ ageMs: HOUR, retryAfterMs: 5 * HOUR + 1000 }),
      `gave up: asked to wait 5h1s, past the maximum age of 6h: ${REASON}`,
    ],
    [
      'a Retry-After beyond any date, shown at its ceiling',
      failed({ retryAfterMs: Number.MAX_SAFE_INTEGER }),
      `gave up: asked to wait 36500d, past the maximum age of 6h: ${REASON}`,
    ],
  ])('dead: %s', (_, attempt, why) => {
    expect(decideRetry(attempt, policy, () => 0.5)).toEqual({ dead: true, why });
  });

  it.each([
    ['the first attempt, jitter at its top', failed(), 1, 5_000],
    ['the third attempt, jitter at its top', failed({ attempt: 3 }), 1, 20_000],
    ['the tenth attempt, capped', failed({ attempt: 10 }), 1, 15 * MIN],
    ['half the ceiling', failed({ attempt: 2 }), 0.5, 5_000],
    ['jitter drawing 0: never sooner than a second', failed({ attempt: 4 }), 0, 1_000],
    ['what the platform asked, beyond the backoff cap', failed({ retryAfterMs: HOUR }), 0, HOUR],
    ['a Retry-After of 0: still a second', failed({ retryAfterMs: 0 }), 1, 1_000],
    [
      'a Retry-After ending exactly at the maximum age',
      failed({ ageMs: HOUR, retryAfterMs: 5 * HOUR }),
      1,
      5 * HOUR,
    ],
  ])('retry: %s', (_, attempt, draw, delayMs) => {
    expect(decideRetry(attempt, policy, () => draw)).toEqual({ dead: false, delayMs });
  });
});
