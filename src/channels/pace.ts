/**
 * Pacing sends to a platform's limits. `paceTurn` is the token bucket, as a pure function
 * of the time: each destination (a Slack channel, a webhook URL, a Teams workflow) may take
 * `burst` messages at once after a quiet period, then one every `1000 / perSecond` ms.
 * `Pacer` keeps the buckets per destination on the injected clock, so that tests drive it
 * with a manual one, and Bottleneck sends one message at a time per destination, in order.
 * When the platform answers 429 anyway, `pause` holds that destination for the
 * Retry-After time: the next message in its queue waits it out, and with it everything
 * queued behind; other destinations are not held. A hold longer than `MAX_INLINE_HOLD_MS`
 * is not waited out here: the message fails as rate limited with the time left, and the
 * outbox keeps it for a retry then (or gives it up, past its maximum age), so that no send
 * sits in a queue for hours. Idle destinations are forgotten.
 */
import Bottleneck from 'bottleneck';
import type { Clock } from '../lib/clock.js';
import { formatDuration } from '../lib/duration.js';
import { DeliveryError, DeliveryErrorCode } from './types.js';

/** A destination's limit. */
export interface PaceOptions {
  /** Messages per second per destination, after the burst. */
  perSecond: number;
  /** Messages a destination may take at once after a quiet period. */
  burst: number;
}

/** What `paceTurn` decides for one message. */
export interface Turn {
  /** How long the message waits before it may go; 0: at once. */
  waitMs: number;
  /** The destination's bucket once it has gone, to keep for the next message. */
  next: number;
}

/**
 * The pacing decision for one destination, as a pure function of the time. The bucket is
 * kept as `next` (clock milliseconds), when the following message would be due at the
 * steady rate (undefined, or past: the bucket is full). A message may go once `burst - 1`
 * intervals before that, so after a quiet period `burst` go at once and then one every
 * `1000 / perSecond` ms, however the messages arrive.
 */
export function paceTurn(next: number | undefined, now: number, pace: PaceOptions): Turn {
  const interval = Math.max(1, Math.round(1000 / pace.perSecond));
  const due = Math.max(next ?? now, now);
  const waitMs = Math.max(0, due - now - (Math.floor(pace.burst) - 1) * interval);
  return { waitMs, next: due + interval };
}

/** The longest hold a message waits out in the queue; a longer one is a retry for the outbox. */
export const MAX_INLINE_HOLD_MS = 60_000;

/** Destinations idle this long lose their queue; their bucket is full again long before. */
const IDLE_MS = 10 * 60_000;

export class Pacer {
  private readonly group: Bottleneck.Group;
  private readonly closing = new AbortController();
  /** Destinations on hold after a 429, until this instant (clock milliseconds). */
  private readonly holds = new Map<string, number>();
  /** Each destination's bucket (see `paceTurn`); a full one is dropped. */
  private readonly buckets = new Map<string, number>();

  /** `platform` names the channel in its reasons (`teams: ratelimited, …`). */
  constructor(
    private readonly pace: PaceOptions,
    private readonly clock: Clock,
    private readonly platform: string,
  ) {
    if (!(pace.perSecond > 0) || !(pace.burst >= 1)) {
      throw new RangeError(`${platform} pacing needs perSecond > 0 and burst >= 1`);
    }
    this.group = new Bottleneck.Group({ maxConcurrent: 1, timeout: IDLE_MS });
  }

  /**
   * Runs `fn` once `destination` may take another message. An abort while the message
   * waits its turn rejects with the signal's reason; once sent, it runs to the end.
   */
  run<T>(destination: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let started = false;
    const job = this.group.key(destination).schedule(async () => {
      await this.held(destination, signal);
      await this.turn(destination, signal);
      signal?.throwIfAborted();
      started = true;
      return fn();
    });
    if (!signal) return job;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        if (!started) reject(signal.reason);
      };
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      job.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /** Holds every later message to `destination` for `ms` milliseconds. */
  pause(destination: string, ms: number): void {
    const until = this.clock.now().getTime() + ms;
    this.holds.set(destination, Math.max(until, this.holds.get(destination) ?? 0));
  }

  /** Waits out a pause of `destination`; messages run one at a time, so all later ones wait. */
  private async held(destination: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const until = this.holds.get(destination);
      if (until === undefined) return;
      const wait = until - this.clock.now().getTime();
      if (wait <= 0) {
        this.holds.delete(destination);
        return;
      }
      if (wait > MAX_INLINE_HOLD_MS)
        throw new DeliveryError(
          `${this.platform}: ratelimited, held for ${formatDuration(wait)} more (${destination.slice(0, 100)})`,
          { code: DeliveryErrorCode.RateLimited, permanent: false, retryAfterMs: wait },
        );
      const signals = signal ? [signal, this.closing.signal] : [this.closing.signal];
      await this.clock.sleep(wait, AbortSignal.any(signals));
    }
  }

  /** Waits until `destination`'s bucket lets a message go, and takes it. */
  private async turn(destination: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.clock.now().getTime();
      const { waitMs, next } = paceTurn(this.buckets.get(destination), now, this.pace);
      if (waitMs <= 0) {
        for (const [key, at] of this.buckets) if (at <= now) this.buckets.delete(key);
        this.buckets.set(destination, next);
        return;
      }
      const signals = signal ? [signal, this.closing.signal] : [this.closing.signal];
      await this.clock.sleep(waitMs, AbortSignal.any(signals));
    }
  }

  /** Stops every limiter: waits and queued messages are called off. */
  async close(): Promise<void> {
    this.closing.abort();
    await Promise.all(
      this.group.limiters().map(async ({ key, limiter }) => {
        await limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
        await this.group.deleteKey(key);
      }),
    );
  }
}
