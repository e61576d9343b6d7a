/**
 * Runs the feeds: each on its own interval with jitter, never overlapping itself, backing
 * off after failures (after an authentication failure, which a quick retry cannot fix,
 * straight to the interval), and recording every attempt in `sync_state` and the
 * metrics. A failing feed is tried again at least once an interval (unless the API asked
 * for longer with `Retry-After`), so that the moment it works again is seen. A database
 * that cannot record a run fails that run, not the feed: it goes on, marked unhealthy.
 */

import { exponentialDelay } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import { formatTimeLeft } from '../lib/duration.js';
import { errorCode } from '../lib/error-text.js';
import type { Logger } from '../lib/logger.js';
import { toUtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import type { DatabaseErrorCode } from '../store/database.js';
import type { FeedState } from '../store/sync-state.js';
import { AuthenticationError, UpstreamError } from '../upstream/errors.js';
import type { IngestMetrics } from './events.js';
import { assessHealth, type FeedHealth, type FeedsHealth } from './health.js';

/** A unit of scheduled work. */
export interface Feed {
  name: string;
  intervalMs: number;
  /** Does one sync; throws on failure. */
  run(signal: AbortSignal): Promise<unknown>;
  /**
   * After a successful run at `now`, how long to wait before the next (capped at the
   * interval), for a feed that knows when new data will come; undefined: the interval
   * with jitter. It may read the store to decide, so it may answer with a Promise.
   */
  nextDelayMs?(now: Date): number | undefined | Promise<number | undefined>;
}

/** How one run ended. */
export interface FeedOutcome {
  feed: string;
  ok: boolean;
  error?: Error;
  /** How long to wait before the next run. */
  nextDelayMs: number;
}

export interface SchedulerDeps {
  store: AsyncStore;
  clock: Clock;
  logger: Logger;
  metrics?: IngestMetrics | undefined;
  random?: () => number;
  /**
   * Hears how each run ended (outages are judged, the heartbeat sent from here); it must
   * not throw, and what it throws is logged.
   */
  onOutcome?: ((outcome: FeedOutcome) => void) | undefined;
  /**
   * A run's transaction was refused because another replica took the lease (PostgreSQL):
   * the daemon ends this replica's term at once.
   */
  onNotLeader?: (() => void) | undefined;
}

/** Backoff policy after failures, declared once. */
export const schedulerDefaults = {
  /** ± this fraction of the interval, so feeds of many daemons do not align. */
  jitter: 0.1,
  /** First retry after a failure… */
  failureBaseMs: 30_000,
  /** …doubling, but never longer than the interval; after an auth failure, the interval. */
  /**
   * The API's `Retry-After` is honoured up to this, or up to the feed's interval when that
   * is longer: a longer ask (no working API makes one) would stop the feed for good.
   */
  maxRetryAfterMs: 3_600_000,
} as const;

/** A write refused because another replica leads (`store/database.ts`'s `NOT_LEADER`). */
const NOT_LEADER = 'not_leader' satisfies DatabaseErrorCode;

export class Scheduler {
  private readonly random: () => number;
  private readonly failures = new Map<string, number>();
  /** Feeds whose last run the database could not record, with the database's error. */
  private readonly unrecordedRuns = new Map<string, string>();

  constructor(
    private readonly deps: SchedulerDeps,
    readonly feeds: readonly Feed[],
  ) {
    this.random = deps.random ?? Math.random;
  }

  /**
   * Runs one feed once, recording the outcome. Never throws (but for an abort): a database
   * that cannot record the run makes it a failure, logged, and the feed unhealthy at once.
   */
  async runFeed(feed: Feed, signal: AbortSignal): Promise<FeedOutcome> {
    const { store, clock, metrics } = this.deps;
    let unrecorded: Error | undefined;
    const record = async (write: () => Promise<void>) => {
      try {
        await write();
      } catch (caught) {
        unrecorded ??= asError(caught);
      }
    };
    await record(() => store.syncState.attempted(feed.name, toUtcIso(clock.now())));
    const started = performance.now();
    try {
      let error: Error | undefined;
      try {
        await feed.run(signal);
      } catch (caught) {
        if (signal.aborted) throw caught;
        error = asError(caught);
      }
      const at = clock.now();
      // Another replica took the lease: what this run decided was rolled back, and is the
      // new leader's to decide. Nothing failed that the shared feed state should show.
      if (error !== undefined && errorCode(error) === NOT_LEADER) {
        this.deps.logger.warn(
          { feed: feed.name, code: codeOf(error) },
          `${feed.name}: another replica leads now; this run's decisions were rolled back, and the new leader makes them`,
        );
        this.deps.onNotLeader?.();
        return { feed: feed.name, ok: false, error, nextDelayMs: feed.intervalMs };
      }
      if (error === undefined) {
        await record(() => store.syncState.succeeded(feed.name, toUtcIso(at)));
      } else {
        const failure = { message: error.message, code: codeOf(error) };
        await record(() => store.syncState.failed(feed.name, toUtcIso(at), failure));
      }
      // A run fails when the feed failed, or when the database could not record it.
      const cause = error ?? unrecorded;
      if (cause === undefined) {
        metrics?.syncs.inc({ feed: feed.name, result: 'ok' });
        metrics?.lastSuccess.set({ feed: feed.name }, at.getTime() / 1000);
        this.failures.delete(feed.name);
        this.unrecordedRuns.delete(feed.name);
        return { feed: feed.name, ok: true, nextDelayMs: await this.afterSuccess(feed, at) };
      }
      return this.failed(feed, cause, unrecorded);
    } finally {
      metrics?.syncDuration.observe({ feed: feed.name }, (performance.now() - started) / 1000);
    }
  }

  /**
   * Health as `sync_state` tells it, except that a feed whose last run could not be
   * recorded there is unhealthy at once, with the reason; for `/healthz` and `/status`.
   * `view` chooses what of each state is shown (the public `/healthz` names errors by
   * their code only).
   */
  async health(
    now: Date,
    startedAt?: Date,
    view: (states: FeedState[]) => FeedState[] = (states) => states,
  ): Promise<FeedsHealth> {
    let states: FeedState[] = [];
    let unreadable: string | undefined;
    try {
      states = view(await this.deps.store.syncState.all());
    } catch (caught) {
      unreadable = asError(caught).message;
    }
    const report = assessHealth(this.feeds, states, now, startedAt);
    const feeds = report.feeds.map((f): FeedHealth => {
      const problem = this.unrecordedRuns.get(f.feed) ?? unreadable;
      if (problem === undefined) return f;
      const reason = `${f.feed} sync could not be recorded in the database: ${problem}`;
      return { ...f, healthy: false, reason };
    });
    return { healthy: feeds.every((f) => f.healthy), feeds };
  }

  /** Counts, records and logs a failed run (or one the database could not record). */
  private failed(feed: Feed, error: Error, unrecorded: Error | undefined): FeedOutcome {
    const { logger, metrics } = this.deps;
    const code = codeOf(error);
    const streak = (this.failures.get(feed.name) ?? 0) + 1;
    this.failures.set(feed.name, streak);
    metrics?.syncs.inc({ feed: feed.name, result: 'error' });
    metrics?.syncErrors.inc({ feed: feed.name, code });
    const nextDelayMs = this.backoff(feed, error, streak);
    const fields = {
      feed: feed.name,
      code,
      failures: streak,
      nextInSeconds: Math.round(nextDelayMs / 1000),
    };
    if (unrecorded) this.unrecordedRuns.set(feed.name, unrecorded.message);
    else this.unrecordedRuns.delete(feed.name);
    if (unrecorded) {
      const what = error === unrecorded ? 'ran' : `failed (${error.message})`;
      logger.error(
        { ...fields, databaseError: unrecorded.message, databaseCode: codeOf(unrecorded) },
        `${feed.name} sync ${what} but could not be recorded in the database: ${unrecorded.message}; the feed is unhealthy until one is; next try in ${formatTimeLeft(nextDelayMs)}`,
      );
    } else if (error instanceof AuthenticationError) {
      logger.error(
        { feed: feed.name, code, nextInSeconds: fields.nextInSeconds },
        `${feed.name} sync: the API refused the credentials: ${error.message}. Check PIPEWATCH_API_USER and PIPEWATCH_API_KEY; next try in ${formatTimeLeft(nextDelayMs)}`,
      );
    } else {
      const asked = retryAfterOf(error);
      const cut =
        asked > nextDelayMs
          ? `; next try in ${formatTimeLeft(nextDelayMs)}, the longest pipewatch waits for a Retry-After`
          : '';
      logger.warn(fields, `${feed.name} sync failed: ${error.message}${cut}`);
    }
    return { feed: feed.name, ok: false, error, nextDelayMs };
  }

  /** Runs every feed once, in order; for `run --once`. */
  async runOnce(signal: AbortSignal): Promise<FeedOutcome[]> {
    const outcomes: FeedOutcome[] = [];
    for (const feed of this.feeds) {
      if (signal.aborted) break;
      const outcome = await this.runFeed(feed, signal);
      this.report(outcome);
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /** Runs every feed on its schedule until `signal` aborts; a run in progress is let finish. */
  async start(signal: AbortSignal): Promise<void> {
    await Promise.all(this.feeds.map((feed) => this.loop(feed, signal)));
  }

  private async loop(feed: Feed, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let delayMs = feed.intervalMs;
      try {
        const outcome = await this.runFeed(feed, signal);
        delayMs = outcome.nextDelayMs;
        this.report(outcome);
      } catch (error) {
        if (signal.aborted) return;
        // runFeed records its own failures; whatever escapes it must not end the feed.
        this.deps.logger.error(
          { feed: feed.name, err: error },
          `${feed.name} sync: unexpected error, next try in ${formatTimeLeft(delayMs)}: ${asError(error).message}`,
        );
      }
      try {
        await this.deps.clock.sleep(delayMs, signal);
      } catch {
        return;
      }
    }
  }

  private report(outcome: FeedOutcome): void {
    try {
      this.deps.onOutcome?.(outcome);
    } catch (error) {
      this.deps.logger.error(
        { feed: outcome.feed, err: error },
        `${outcome.feed}: what follows a run failed: ${asError(error).message}`,
      );
    }
  }

  /** The feed's chosen delay, never longer than its interval; else the interval with jitter. */
  private async afterSuccess(feed: Feed, at: Date): Promise<number> {
    let chosen: number | undefined;
    try {
      chosen = await feed.nextDelayMs?.(at);
    } catch (error) {
      this.deps.logger.warn(
        { feed: feed.name, err: error },
        `${feed.name}: could not choose the next run's time (${asError(error).message}); using the interval`,
      );
    }
    if (chosen === undefined || !Number.isFinite(chosen)) return this.jittered(feed.intervalMs);
    return Math.min(Math.max(0, Math.round(chosen)), feed.intervalMs);
  }

  private jittered(ms: number): number {
    return Math.round(ms * (1 + schedulerDefaults.jitter * (2 * this.random() - 1)));
  }

  private backoff(feed: Feed, error: Error, streak: number): number {
    // Retrying refused credentials sooner changes nothing and may get the key locked;
    // later than the interval, and the key put right would go unseen for as long.
    if (error instanceof AuthenticationError) return feed.intervalMs;
    const cap = Math.max(feed.intervalMs, schedulerDefaults.maxRetryAfterMs);
    const exponential = exponentialDelay(schedulerDefaults.failureBaseMs, streak, feed.intervalMs);
    return Math.max(Math.min(retryAfterOf(error), cap), exponential);
  }
}

function asError(caught: unknown): Error {
  return caught instanceof Error ? caught : new Error(String(caught));
}

/** The code a failure is counted and recorded under: the API's, the database's, or `ERROR`. */
function codeOf(error: Error): string {
  if (error instanceof UpstreamError) return error.code;
  return errorCode(error) ?? 'ERROR';
}

/** How long the API asked to be left alone, in milliseconds; 0 when it did not say. */
function retryAfterOf(error: Error): number {
  const ms = error instanceof UpstreamError ? error.retryAfterMs : undefined;
  return ms !== undefined && ms > 0 ? ms : 0;
}
