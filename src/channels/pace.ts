/**
 * Token buckets for pacing sends to a platform's limits, as a pure function of the time:
 * each destination (a Slack channel, a webhook URL, a webhook host) may take `burst`
 * messages at once after a quiet period, then one every `1000 / perSecond` ms. The
 * channels keep the buckets and wait on their clock, so tests drive them with a manual one.
 */

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
