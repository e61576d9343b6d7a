/**
 * When the simulated service refreshes its notices data: the upstream publishes in
 * batches ("about every 10 minutes; enterprise accounts: down to 1 minute"), not the
 * instant a pipeline posts. Each refresh lands a little after its nominal slot, by a
 * jitter drawn from the seed and the slot, so a day of refreshes is slightly irregular yet
 * the same on every run.
 */
import { hashKey } from './random.js';

/** The latest a refresh lands after its nominal slot, and at most this share of the period. */
export const REFRESH_JITTER_MAX_MS = 90_000;
const JITTER_SHARE = 0.15;

/** The refresh instants of one service: every `periodMs`, aligned to the epoch, jittered. */
export class RefreshSchedule {
  private readonly jitterMs: number;

  /** `periodMs` 0: no batches, every notice is visible the instant it happens. */
  constructor(
    private readonly seed: number,
    readonly periodMs: number,
  ) {
    this.jitterMs = Math.min(REFRESH_JITTER_MAX_MS, Math.floor(periodMs * JITTER_SHARE));
  }

  /** The refresh of nominal slot `k` (slot k starts at k × period). */
  refreshOfSlot(k: number): number {
    const spread = hashKey(this.seed, 'refresh', this.periodMs, k) % (this.jitterMs + 1);
    return k * this.periodMs + spread;
  }

  /** The first refresh at or after `at`: when a notice that happened at `at` becomes visible. */
  visibleAt(at: number): number {
    if (this.periodMs <= 0) return at;
    const k = Math.floor(at / this.periodMs);
    const own = this.refreshOfSlot(k);
    return own >= at ? own : this.refreshOfSlot(k + 1);
  }
}
