/**
 * Runs the feeds: each on its own interval with jitter, never overlapping itself, backing
 * off after failures (far longer after an authentication failure, which retrying cannot
 * fix), and recording every attempt in `sync_state` and the metrics.
 */
import type { Metrics } from '../http/metrics.js';
import type { Clock } from '../lib/clock.js';
import { formatTimeLeft } from '../lib/duration.js';
import type { Logger } from '../lib/logger.js';
import type { Store } from '../store/index.js';
import { AuthenticationError, UpstreamError } from '../upstream/errors.js';
import { toUtcIso } from '../upstream/schemas.js';

/** A unit of scheduled work. */
export interface Feed {
  name: string;
  intervalMs: number;
  /** Does one sync; throws on failure. */
  run(signal: AbortSignal): Promise<unknown>;
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
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics?: Metrics | undefined;
  random?: () => number;
}

/** Backoff policy after failures, declared once. */
export const schedulerDefaults = {
  /** ± this fraction of the interval, so feeds of many daemons do not align. */
  jitter: 0.1,
  /** First retry after a failure… */
  failureBaseMs: 30_000,
  /** …doubling, but never longer than the interval. After an auth failure: at least this. */
  authBackoffMs: 3_600_000,
  /**
   * The API's `Retry-After` is honoured up to this, or up to the feed's interval when that
   * is longer: a longer ask (no working API makes one) would stop the feed for good.
   */
  maxRetryAfterMs: 3_600_000,
} as const;

export class Scheduler {
  private readonly random: () => number;
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly deps: SchedulerDeps,
    readonly feeds: readonly Feed[],
  ) {
    this.random = deps.random ?? Math.random;
  }

  /** Runs one feed once, recording the outcome. Never throws (but for an abort). */
  async runFeed(feed: Feed, signal: AbortSignal): Promise<FeedOutcome> {
    const { store, clock, logger, metrics } = this.deps;
    store.syncState.attempted(feed.name, toUtcIso(clock.now()));
    const started = performance.now();
    try {
      await feed.run(signal);
      const at = clock.now();
      store.syncState.succeeded(feed.name, toUtcIso(at));
      metrics?.syncs.inc({ feed: feed.name, result: 'ok' });
      metrics?.lastSuccess.set({ feed: feed.name }, at.getTime() / 1000);
      this.failures.delete(feed.name);
      return { feed: feed.name, ok: true, nextDelayMs: this.jittered(feed.intervalMs) };
    } catch (caught) {
      if (signal.aborted) throw caught;
      const error = caught instanceof Error ? caught : new Error(String(caught));
      const code =
        error instanceof UpstreamError
          ? error.code
          : ((error as { code?: string }).code ?? 'ERROR');
      const streak = (this.failures.get(feed.name) ?? 0) + 1;
      this.failures.set(feed.name, streak);
      store.syncState.failed(feed.name, toUtcIso(clock.now()), { message: error.message, code });
      metrics?.syncs.inc({ feed: feed.name, result: 'error' });
      metrics?.syncErrors.inc({ feed: feed.name, code });
      const nextDelayMs = this.backoff(feed, error, streak);
      if (error instanceof AuthenticationError) {
        logger.error(
          { feed: feed.name, code, nextInSeconds: Math.round(nextDelayMs / 1000) },
          `${feed.name} sync: the API refused the credentials: ${error.message}. Check PIPEWATCH_API_USER and PIPEWATCH_API_KEY; next try in ${Math.round(nextDelayMs / 60_000)} min`,
        );
      } else {
        const asked = retryAfterOf(error);
        const cut =
          asked > nextDelayMs
            ? `; next try in ${formatTimeLeft(nextDelayMs)}, not after the ${formatTimeLeft(asked)} the API asked for, which is longer than pipewatch waits`
            : '';
        logger.warn(
          {
            feed: feed.name,
            code,
            failures: streak,
            nextInSeconds: Math.round(nextDelayMs / 1000),
          },
          `${feed.name} sync failed: ${error.message}${cut}`,
        );
      }
      return { feed: feed.name, ok: false, error, nextDelayMs };
    } finally {
      metrics?.syncDuration.observe({ feed: feed.name }, (performance.now() - started) / 1000);
    }
  }

  /** Runs every feed once, in order; for `run --once`. */
  async runOnce(signal: AbortSignal): Promise<FeedOutcome[]> {
    const outcomes: FeedOutcome[] = [];
    for (const feed of this.feeds) {
      if (signal.aborted) break;
      outcomes.push(await this.runFeed(feed, signal));
    }
    return outcomes;
  }

  /** Runs every feed on its schedule until `signal` aborts; a run in progress is let finish. */
  async start(signal: AbortSignal): Promise<void> {
    await Promise.all(this.feeds.map((feed) => this.loop(feed, signal)));
  }

  private async loop(feed: Feed, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let outcome: FeedOutcome;
      try {
        outcome = await this.runFeed(feed, signal);
      } catch {
        return;
      }
      try {
        await this.deps.clock.sleep(outcome.nextDelayMs, signal);
      } catch {
        return;
      }
    }
  }

  private jittered(ms: number): number {
    return Math.round(ms * (1 + schedulerDefaults.jitter * (2 * this.random() - 1)));
  }

  private backoff(feed: Feed, error: Error, streak: number): number {
    if (error instanceof AuthenticationError)
      return Math.max(feed.intervalMs, schedulerDefaults.authBackoffMs);
    const cap = Math.max(feed.intervalMs, schedulerDefaults.maxRetryAfterMs);
    const exponential = schedulerDefaults.failureBaseMs * 2 ** (streak - 1);
    return Math.max(Math.min(retryAfterOf(error), cap), Math.min(feed.intervalMs, exponential));
  }
}

/** How long the API asked to be left alone, in milliseconds; 0 when it did not say. */
function retryAfterOf(error: Error): number {
  const ms = error instanceof UpstreamError ? error.retryAfterMs : undefined;
  return ms !== undefined && ms > 0 ? ms : 0;
}
