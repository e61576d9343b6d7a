/**
 * The notice feed's schedule: after each successful poll, the refresh pattern is
 * estimated afresh from the database (so it survives restarts with nothing to persist),
 * and the next poll placed just after the next expected refresh; with no pattern, the
 * configured interval. Locking onto a pattern and losing it are logged once each.
 */
import type { Logger } from '../lib/logger.js';
import { toUtcIso } from '../lib/time.js';
import type { Store } from '../store/index.js';
import { recentRefreshObservations } from '../store/refresh-observations.js';
import {
  describeLock,
  estimateRefresh,
  nextPollAt,
  type RefreshLock,
  type RefreshPhaseOptions,
  refreshPhaseDefaults,
} from './refresh-phase.js';

/** Places notice polls after the API's refreshes; never waits longer than the interval. */
export class NoticePollPlanner {
  private current: RefreshLock | null = null;

  constructor(
    private readonly deps: { store: Store; logger: Logger },
    private readonly intervalMs: number,
    private readonly options: RefreshPhaseOptions = refreshPhaseDefaults,
  ) {}

  /** The pattern the last decision rested on; null: polling on the interval. */
  get lock(): RefreshLock | null {
    return this.current;
  }

  /** How long to wait after a successful poll at `now`; undefined: the plain (jittered) interval. */
  nextDelayMs(now: Date): number | undefined {
    const at = now.getTime();
    const since = toUtcIso(new Date(at - this.options.lookbackMs));
    const observations = recentRefreshObservations(this.deps.store, since);
    const lock = estimateRefresh(observations, this.intervalMs * 1.5, this.options);
    this.report(lock);
    if (!lock) return undefined;
    const created = observations.map((o) => Date.parse(o.createdAt));
    const next = nextPollAt(
      at,
      lock,
      (windowStart) => created.some((c) => c >= windowStart),
      this.options,
    );
    return Math.min(Math.max(0, next - at), this.intervalMs);
  }

  private report(lock: RefreshLock | null): void {
    const before = this.current;
    this.current = lock;
    if (lock && (!before || before.periodMs !== lock.periodMs)) {
      this.deps.logger.info(
        {
          feed: 'notices',
          refresh_period_s: lock.periodMs / 1000,
          refresh_window_start_s: Math.round(lock.startMs / 1000),
          refresh_window_s: Math.round(lock.spreadMs / 1000),
        },
        `notices: the API refreshes ${describeLock(lock)}; polling just after each refresh`,
      );
    } else if (!lock && before) {
      this.deps.logger.info(
        { feed: 'notices' },
        `notices: the API's refreshes no longer follow a pattern; polling every ${Math.round(this.intervalMs / 1000)} s`,
      );
    }
  }
}
