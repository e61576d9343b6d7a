/**
 * The notice feed's schedule: after each successful poll, the refresh pattern is
 * estimated afresh from the database (so it survives restarts with nothing to persist),
 * and the next poll placed just after the next expected refresh; with no pattern, the
 * configured interval. Locking onto a pattern and losing it are logged once each.
 */

import { formatDuration } from '../lib/duration.js';
import type { Logger } from '../lib/logger.js';
import { toUtcIso, type UtcIso } from '../lib/time.js';
import { counted } from '../lib/words.js';
import type { AsyncStore } from '../store/async-store.js';
import type { RefreshObservation } from '../store/refresh-observations.js';
import {
  describeLock,
  estimateRefresh,
  nextPollAt,
  type RefreshLock,
  type RefreshPhaseOptions,
  refreshPhaseDefaults,
} from './refresh-phase.js';

/** Reads the stored notices' refresh observations since an instant, for the notice feed's schedule. */
export type ReadRefreshObservations = (since: UtcIso) => Promise<RefreshObservation[]>;

/** Since when the stored notices show the refresh pattern at `now`. */
function lookbackStart(now: Date, options: RefreshPhaseOptions): UtcIso {
  return toUtcIso(new Date(now.getTime() - options.lookbackMs));
}

/** The pattern `observations` show for a feed polled every `intervalMs`. */
function lockOf(
  observations: readonly RefreshObservation[],
  intervalMs: number,
  options: RefreshPhaseOptions,
): RefreshLock | null {
  return estimateRefresh(observations, intervalMs * 1.5, options);
}

/**
 * The refresh pattern the stored notices show at `now`, with what it rests on: what each
 * scheduling decision reads, and the status report (`noticeScheduleReport`) estimates
 * the same way from the same observations, so they agree.
 */
export async function learnRefresh(
  read: ReadRefreshObservations,
  now: Date,
  intervalMs: number,
  options: RefreshPhaseOptions = refreshPhaseDefaults,
): Promise<{ lock: RefreshLock | null; observations: RefreshObservation[] }> {
  const observations = await read(lookbackStart(now, options));
  return { lock: lockOf(observations, intervalMs, options), observations };
}

/** The notice schedule in the status report: a learned refresh pattern, or the interval. */
export interface NoticeScheduleReport {
  locked: boolean;
  interval_seconds: number;
  /** The refresh period locked onto; null: polling on the interval. */
  period_seconds: number | null;
  /** Seconds into each period of the typical refresh, which the poll follows. */
  refresh_at_seconds: number | null;
  /** The window refreshes land in: its start, seconds into the period, and its width. */
  window_start_seconds: number | null;
  window_seconds: number | null;
  /** Distinct refresh instants the pattern rests on. */
  refreshes: number | null;
}

/** The schedule the next notice poll follows, as the database shows it at `now`. */
export async function noticeScheduleReport(
  store: AsyncStore,
  now: Date,
  intervalMs: number,
): Promise<NoticeScheduleReport> {
  const options = refreshPhaseDefaults;
  const observations = await store.notices.refreshObservations(lookbackStart(now, options));
  const lock = lockOf(observations, intervalMs, options);
  const seconds = (ms: number) => Math.round(ms / 1000);
  return {
    locked: lock !== null,
    interval_seconds: seconds(intervalMs),
    period_seconds: lock && seconds(lock.periodMs),
    refresh_at_seconds: lock && seconds((lock.startMs + lock.typicalMs) % lock.periodMs),
    window_start_seconds: lock && seconds(lock.startMs),
    window_seconds: lock && seconds(lock.spreadMs),
    refreshes: lock === null ? null : lock.observed,
  };
}

/** `locked onto the 10 min refresh at :02:40 past (from 16 refreshes)`, or the interval. */
export function describeNoticeSchedule(report: NoticeScheduleReport): string {
  if (report.period_seconds === null || report.refresh_at_seconds === null) {
    return `no refresh pattern yet: every ${formatDuration(report.interval_seconds * 1000)}`;
  }
  const period =
    report.period_seconds % 60 === 0
      ? `${report.period_seconds / 60} min`
      : `${report.period_seconds} s`;
  const at = report.refresh_at_seconds;
  const mmss = `${String(Math.floor(at / 60)).padStart(2, '0')}:${String(at % 60).padStart(2, '0')}`;
  return `locked onto the ${period} refresh at :${mmss} past (from ${counted(report.refreshes ?? 0, 'refresh', 'refreshes')})`;
}

/** Places notice polls after the API's refreshes; never waits longer than the interval. */
export class NoticePollPlanner {
  private current: RefreshLock | null = null;

  constructor(
    private readonly deps: { store: AsyncStore; logger: Logger },
    private readonly intervalMs: number,
    private readonly options: RefreshPhaseOptions = refreshPhaseDefaults,
  ) {}

  /** The pattern the last decision rested on; null: polling on the interval. */
  get lock(): RefreshLock | null {
    return this.current;
  }

  /** How long to wait after a successful poll at `now`; undefined: the plain (jittered) interval. */
  async nextDelayMs(now: Date): Promise<number | undefined> {
    const at = now.getTime();
    const { lock, observations } = await learnRefresh(
      (since) => this.deps.store.notices.refreshObservations(since),
      now,
      this.intervalMs,
      this.options,
    );
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
