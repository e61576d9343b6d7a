/**
 * Watches for outages as they happen and has them decided (`outages.ts`): after each run
 * of a feed it judges every feed's staleness and every target's backlog, and each
 * delivery's outcome tells it when a target went dead or works again. Whatever goes
 * wrong here is logged, never thrown: watching must not stop a feed or a delivery lane.
 *
 * The staleness clock: a feed is stale once more than `STALE_INTERVALS` of its interval
 * have passed since its last success. Until a feed has been tried by this process, or
 * when it has never succeeded, the clock counts from the daemon's start instead, so a
 * daemon started after a long stop gives each feed its intervals before it speaks; a
 * feed that fails its first try after such a stop is stale at once.
 */
import type { Target } from '../domain/targets.js';
import { targetLabel } from '../domain/targets.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { redactor } from '../lib/redact.js';
import { toUtcIso, type UtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import {
  feedRecovered,
  feedStale,
  feedSubject,
  type OutageChange,
  STALE_INTERVALS,
  targetDead,
  targetRecovered,
  targetSubject,
} from './outages.js';

export interface OutageWatchDeps {
  store: AsyncStore;
  clock: Clock;
  logger: Logger;
  /** `PIPEWATCH_OPS_TARGET`; unset: outages are only logged. */
  opsTarget: Target | undefined;
  /** The scheduled feeds. */
  feeds: ReadonlyArray<{ name: string; intervalMs: number }>;
  /** When the daemon started: the staleness clock of a feed not yet tried, or never successful. */
  startedAt: Date;
  /** `PIPEWATCH_DELIVERY_STUCK_AFTER`. */
  stuckAfterMs: number;
  /** Values scrubbed from error text before it goes into an alert. */
  secrets: readonly string[];
  /** An alert was queued: the dispatcher should look. */
  wake: () => void;
}

/** Longest error text an alert carries. */
const MAX_ERROR = 500;

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

export class OutageWatch {
  /** Feeds this process has run at least once. */
  private readonly tried = new Set<string>();
  private readonly redact: (text: string) => string;

  constructor(private readonly deps: OutageWatchDeps) {
    this.redact = redactor(deps.secrets);
  }

  /** A feed's run ended: a success ends its outage; then every feed and target is judged. */
  async feedRan(outcome: { feed: string; ok: boolean }): Promise<void> {
    this.tried.add(outcome.feed);
    if (outcome.ok && (await this.isOpen(feedSubject(outcome.feed))))
      await this.decide(`${outcome.feed} feed`, (ctx) =>
        feedRecovered(ctx, this.deps.opsTarget, outcome.feed),
      );
    await this.look();
  }

  /** Judges every feed's staleness and every target's backlog now. */
  async look(): Promise<void> {
    const { store, clock } = this.deps;
    const now = clock.now().getTime();
    let states: Awaited<ReturnType<AsyncStore['syncState']['all']>>;
    try {
      states = await store.syncState.all();
    } catch (error) {
      this.failed('feeds', error);
      return;
    }
    const byFeed = new Map(states.map((s) => [s.feed, s]));
    for (const feed of this.deps.feeds) {
      const state = byFeed.get(feed.name);
      const since = this.staleSince(feed.name, state?.last_success_at ?? null);
      if (now - Date.parse(since) <= STALE_INTERVALS * feed.intervalMs) continue;
      if (await this.isOpen(feedSubject(feed.name))) continue;
      await this.decide(`${feed.name} feed`, (ctx) =>
        feedStale(ctx, this.deps.opsTarget, {
          feed: feed.name,
          intervalMs: feed.intervalMs,
          state,
          since,
          clean: (text) => this.clean(text),
        }),
      );
    }
    await this.lookAtBacklog(now);
  }

  /** A delivery to `target` was confirmed: its outage, if any, ends. */
  async delivered(target: Target): Promise<void> {
    if (!(await this.isOpen(targetSubject(target)))) return;
    await this.decide(targetLabel(target), (ctx) =>
      targetRecovered(ctx, this.deps.opsTarget, target),
    );
  }

  /** A delivery to `target` failed for good: `reason` has its secrets removed already. */
  async failedForGood(target: Target, reason: string, code: string | null): Promise<void> {
    if (await this.isOpen(targetSubject(target))) return;
    await this.decide(targetLabel(target), (ctx) =>
      targetDead(ctx, this.deps.opsTarget, {
        target,
        how: 'dead',
        reason: this.clean(reason),
        code,
      }),
    );
  }

  /** Targets whose oldest waiting alert fell due longer ago than the stuck threshold. */
  private async lookAtBacklog(now: number): Promise<void> {
    let backlog: Awaited<ReturnType<AsyncStore['outbox']['backlog']>>;
    try {
      backlog = await this.deps.store.outbox.backlog();
    } catch (error) {
      this.failed('delivery', error);
      return;
    }
    for (const b of backlog) {
      const waitedMs = now - Date.parse(b.oldest_at);
      if (waitedMs <= this.deps.stuckAfterMs || (await this.isOpen(targetSubject(b.target))))
        continue;
      await this.decide(targetLabel(b.target), (ctx) =>
        targetDead(ctx, this.deps.opsTarget, {
          target: b.target,
          how: 'stuck',
          reason: this.clean(b.last_error ?? 'no answer yet'),
          code: null,
          waitedMs,
          limitMs: this.deps.stuckAfterMs,
        }),
      );
    }
  }

  /**
   * Where a feed's staleness counts from: its last success once this process has tried
   * it, else the later of that and the daemon's start; the start when it never succeeded.
   */
  private staleSince(feed: string, lastSuccess: UtcIso | null): UtcIso {
    const start = toUtcIso(this.deps.startedAt);
    if (lastSuccess === null) return start;
    if (this.tried.has(feed)) return lastSuccess;
    return Date.parse(lastSuccess) > this.deps.startedAt.getTime() ? lastSuccess : start;
  }

  private async isOpen(subject: string): Promise<boolean> {
    try {
      return (await this.deps.store.outages.get(subject)) !== undefined;
    } catch (error) {
      this.failed('outages', error);
      return true;
    }
  }

  /** Decides one change in a transaction of its own, logs it, and wakes delivery. */
  private async decide(
    what: string,
    change: (ctx: { store: AsyncStore; now: UtcIso }) => Promise<OutageChange | undefined>,
  ): Promise<void> {
    const { store, clock } = this.deps;
    let decided: OutageChange | undefined;
    try {
      decided = await store.transaction(() => change({ store, now: toUtcIso(clock.now()) }));
    } catch (error) {
      this.failed(what, error);
      return;
    }
    if (decided === undefined) return;
    this.log(decided);
    if (decided.told) this.deps.wake();
  }

  private log(c: OutageChange): void {
    const { logger, opsTarget } = this.deps;
    // Not the subject: a webhook's URL often holds its token.
    const fields = { outage: c.shown, began: c.began, told: c.told ?? null };
    if (!c.began) {
      logger.warn(fields, `${c.summary}${c.told ? ` (operations alert to ${c.told})` : ''}`);
    } else if (c.untold === 'is-ops-target') {
      logger.error(
        fields,
        `PIPEWATCH_OPS_TARGET${opsTarget ? ` ${targetLabel(opsTarget)}` : ''} itself is failing, so nobody hears of this or of any other outage through it until it works again: ${c.summary}`,
      );
    } else if (c.untold === 'no-ops-target') {
      logger.error(fields, `${c.summary} Nobody is told: PIPEWATCH_OPS_TARGET is not set.`);
    } else {
      logger.error(fields, `${c.summary} (operations alert to ${c.told})`);
    }
  }

  private failed(what: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.deps.logger.error(
      { err: error },
      `could not judge or record an outage of ${what}: ${message}`,
    );
  }

  /** Error text fit for an alert: secrets removed, one line, bounded. */
  private clean(text: string): string {
    const line = this.redact(text).replace(CONTROL, ' ').trim();
    return line.length > MAX_ERROR ? `${line.slice(0, MAX_ERROR - 1)}…` : line;
  }
}
