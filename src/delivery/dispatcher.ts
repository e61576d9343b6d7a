/**
 * The dispatcher: takes due outbox rows and sends them through their channel.
 *
 * - Rows for one target that fell due within the digest window of each other go out as
 *   one digest message (up to the channel's `maxDigest`); targets are sent to
 *   concurrently, one target's messages in order.
 * - Every attempt has a total deadline (connect, send and the complete answer); one
 *   that runs out is a temporary failure, retried with backoff.
 * - A row is claimed (committed) before its send and marked sent only after the
 *   platform confirmed it, with what the platform answered. Claims left by a crash are
 *   released on start, so those rows are sent again: at-least-once, with duplicates
 *   only for what was in flight.
 * - A temporary failure is retried with capped exponential backoff and full jitter, or
 *   after the platform's `Retry-After`; the target's remaining messages wait with it.
 *   A permanent failure, or a temporary one older than the maximum age, makes the row
 *   dead with its reason, logged once and counted.
 * - Each alert sent or given up on is one log line (see `delivery-log.ts`).
 */
import type { OutboxRow } from '../alerts/outbox.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, withDeadline } from '../channels/deadline.js';
import type { Alert, Channel, ChannelSet } from '../channels/types.js';
import { DeliveryError } from '../channels/types.js';
import type { Metrics } from '../http/metrics.js';
import { backoffDelay, type RetryPolicy } from '../lib/backoff.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { formatDuration } from '../lib/duration.js';
import type { Logger } from '../lib/logger.js';
import type { Store } from '../store/index.js';
import { toUtcIso } from '../upstream/schemas.js';
import { logDead, logSent } from './delivery-log.js';
import { redact } from './redact.js';

export interface DispatcherOptions {
  /** Rows for one target due within this many milliseconds of each other form one digest. */
  digestWindowMs: number;
  /** A row failing temporarily this long after it was decided goes dead. */
  maxAgeMs: number;
  /** Total time of one attempt, connect to complete answer; default 30 s. */
  timeoutMs?: number;
  /** Backoff between attempts of one row. */
  retry?: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;
  /** Rows read per pass. */
  batchSize?: number;
  /** Values that must never be written anywhere (tokens, passwords), scrubbed from reasons. */
  secrets?: readonly string[];
  random?: () => number;
}

export interface DispatcherDeps {
  store: Store;
  channels: ChannelSet;
  /** The outbox's time: what is due, retries, ages. */
  clock: Clock;
  /**
   * The time attempt deadlines run on: real time by default, since platforms answer in
   * real time even when the outbox's clock runs faster (the demo); tests inject theirs.
   */
  deadlineClock?: Clock;
  logger: Logger;
  metrics?: Metrics;
}

/** What one pass or one drain did. */
export interface DispatchResult {
  /** Alerts confirmed by their platform. */
  sent: number;
  /** Messages sent (a digest is one message for many alerts). */
  messages: number;
  /** Alerts waiting for a retry. */
  retrying: number;
  /** Alerts given up on. */
  dead: number;
}

/** After a pass failed (the database, not a platform), the next one waits this long. */
const PAUSE_AFTER_FAILURE_MS = 5_000;
/** Never sooner than this: full jitter can draw 0. */
const MIN_RETRY_MS = 1_000;
const DEFAULT_RETRY = { baseDelayMs: 5_000, maxDelayMs: 15 * 60_000 };

function empty(): DispatchResult {
  return { sent: 0, messages: 0, retrying: 0, dead: 0 };
}

function add(into: DispatchResult, more: DispatchResult): DispatchResult {
  into.sent += more.sent;
  into.messages += more.messages;
  into.retrying += more.retrying;
  into.dead += more.dead;
  return into;
}

/**
 * Splits one target's due rows (oldest first) into messages: a new digest starts when a
 * row falls due more than the window after the digest's first row, or the digest is full.
 */
export function digests(
  rows: readonly OutboxRow[],
  windowMs: number,
  maxDigest: number,
): OutboxRow[][] {
  const out: OutboxRow[][] = [];
  let current: OutboxRow[] = [];
  let start = 0;
  for (const row of rows) {
    const at = Date.parse(row.next_attempt_at);
    if (current.length === 0 || current.length >= maxDigest || at - start > windowMs) {
      if (current.length > 0) out.push(current);
      current = [];
      start = at;
    }
    current.push(row);
  }
  if (current.length > 0) out.push(current);
  return out;
}

export class Dispatcher {
  private readonly retry: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;
  private readonly random: () => number;
  private wakeUp: AbortController | undefined;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly options: DispatcherOptions,
  ) {
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.random = options.random ?? Math.random;
  }

  /** Returns rows a crash left in flight to the queue; call once before sending. */
  recover(): number {
    const released = this.deps.store.outbox.releaseClaims(toUtcIso(this.deps.clock.now()));
    if (released > 0)
      this.deps.logger.warn(
        { released },
        `delivery: ${released} alert${released === 1 ? ' was' : 's were'} in flight at the last stop and will be sent again`,
      );
    return released;
  }

  /** Sends every row due now, pass after pass until none is left; returns what happened. */
  async dispatchDue(signal?: AbortSignal): Promise<DispatchResult> {
    const total = empty();
    for (;;) {
      signal?.throwIfAborted();
      const pass = await this.pass(signal);
      add(total, pass);
      if (pass.sent + pass.dead + pass.retrying === 0) break;
    }
    this.observe();
    return total;
  }

  /**
   * Sends what is due and waits for what falls due within `boundMs` (retries, the
   * platform's `Retry-After`); rows due later stay for the next run.
   */
  async drain(boundMs: number, signal?: AbortSignal): Promise<DispatchResult> {
    const until = this.deps.clock.now().getTime() + boundMs;
    const total = empty();
    for (;;) {
      const result = await this.dispatchDue(signal);
      add(total, result);
      total.retrying = result.retrying;
      const next = this.deps.store.outbox.nextDueAt();
      if (next === null) return total;
      const at = Date.parse(next);
      if (at > until) return total;
      await this.deps.clock.sleep(Math.max(0, at - this.deps.clock.now().getTime()), signal);
    }
  }

  /** Sends as rows fall due until `signal` aborts; `wake` makes it look at once. */
  async run(signal: AbortSignal, idleMs = 30_000): Promise<void> {
    this.recover();
    while (!signal.aborted) {
      let failed = false;
      try {
        await this.dispatchDue(signal);
      } catch (error) {
        failed = true;
        if (signal.aborted) break;
        this.deps.logger.error({ err: error }, 'delivery pass failed; trying again shortly');
        // Nothing is in flight once a pass has ended: what it claimed goes back to the queue.
        this.recover();
      }
      const next = this.deps.store.outbox.nextDueAt();
      const now = this.deps.clock.now().getTime();
      const wait = failed
        ? PAUSE_AFTER_FAILURE_MS
        : next === null
          ? idleMs
          : Math.min(idleMs, Math.max(0, Date.parse(next) - now));
      this.wakeUp = new AbortController();
      try {
        await this.deps.clock.sleep(wait, AbortSignal.any([signal, this.wakeUp.signal]));
      } catch {
        // Woken, or stopping: the loop condition decides.
      }
    }
  }

  /** New rows were written: send them now rather than at the next timer. */
  wake(): void {
    this.wakeUp?.abort();
  }

  private async pass(signal?: AbortSignal): Promise<DispatchResult> {
    const { store, clock } = this.deps;
    const now = toUtcIso(clock.now());
    const rows = store.outbox.due(now, this.options.batchSize ?? 500);
    if (rows.length === 0) return empty();
    const byTarget = new Map<string, OutboxRow[]>();
    for (const row of rows) {
      const key = JSON.stringify(row.target);
      const list = byTarget.get(key);
      if (list) list.push(row);
      else byTarget.set(key, [row]);
    }
    store.transaction(() =>
      store.outbox.claim(
        rows.map((r) => r.id),
        now,
      ),
    );
    // Every target finishes before a failure is reported, so that none is in flight after.
    const settled = await Promise.allSettled(
      [...byTarget.values()].map((targetRows) => this.sendTarget(targetRows, signal)),
    );
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.reduce(
      (total, r) => (r.status === 'fulfilled' ? add(total, r.value) : total),
      empty(),
    );
  }

  /** One target's rows: its messages in order; the first temporary failure holds the rest. */
  private async sendTarget(rows: OutboxRow[], signal?: AbortSignal): Promise<DispatchResult> {
    const result = empty();
    const target = rows[0]!.target;
    const channel = this.deps.channels.for(target.kind) as Channel;
    const messages = digests(rows, this.options.digestWindowMs, Math.max(1, channel.maxDigest));
    for (const [i, message] of messages.entries()) {
      const outcome = await this.sendMessage(channel, message, signal);
      add(result, outcome.result);
      if (outcome.holdUntil !== undefined) {
        const rest = messages.slice(i + 1).flat();
        if (rest.length > 0) {
          this.deps.store.outbox.retryLater(
            rest.map((r) => r.id),
            'waiting: an earlier alert to this target failed',
            outcome.holdUntil,
            false,
          );
          result.retrying += rest.length;
        }
        break;
      }
    }
    return result;
  }

  private async sendMessage(
    channel: Channel,
    rows: OutboxRow[],
    signal?: AbortSignal,
  ): Promise<{ result: DispatchResult; holdUntil?: ReturnType<typeof toUtcIso> }> {
    const { store, clock, logger, metrics } = this.deps;
    const ids = rows.map((r) => r.id);
    const alerts: Alert[] = rows.map((r) => ({ key: r.key, payload: r.payload }));
    const target = rows[0]!.target;
    const started = clock.now();
    try {
      const deadline = {
        kind: channel.kind,
        ms: this.options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
        clock: this.deps.deadlineClock ?? systemClock,
        signal,
      };
      const delivered = await withDeadline(deadline, (bounded) =>
        channel.send(target, alerts, {
          now: toUtcIso(started),
          threads: store.threads,
          signal: bounded,
        }),
      );
      const detail = this.scrub(delivered.detail);
      store.outbox.markSent(ids, toUtcIso(clock.now()), detail);
      metrics?.deliveries.inc({ channel: channel.kind, result: 'sent' }, rows.length);
      metrics?.deliveryMessages.inc({ channel: channel.kind });
      logSent(logger, rows, detail, (text) => this.scrub(text));
      return { result: { ...empty(), sent: rows.length, messages: 1 } };
    } catch (error) {
      const failure =
        error instanceof DeliveryError
          ? error
          : new DeliveryError(`${channel.kind}: ${(error as Error)?.message ?? String(error)}`, {
              permanent: false,
              cause: error,
            });
      if (!(error instanceof DeliveryError))
        logger.error({ err: error, channel: channel.kind }, 'delivery failed unexpectedly');
      const reason = this.scrub(failure.reason);
      const now = clock.now();
      const oldest = Math.min(...rows.map((r) => Date.parse(r.created_at)));
      const expired = now.getTime() - oldest >= this.options.maxAgeMs;
      if (failure.permanent || expired) {
        const why = failure.permanent
          ? reason
          : `gave up after ${formatDuration(this.options.maxAgeMs)}: ${reason}`;
        store.outbox.markDead(ids, why);
        metrics?.deliveries.inc({ channel: channel.kind, result: 'dead' }, rows.length);
        logDead(logger, rows, why, failure.permanent, (text) => this.scrub(text));
        return { result: { ...empty(), dead: rows.length } };
      }
      const attempts = Math.max(...rows.map((r) => r.attempts)) + 1;
      const delay = Math.max(
        MIN_RETRY_MS,
        backoffDelay(
          {
            ...this.retry,
            attempts: Number.POSITIVE_INFINITY,
            maxElapsedMs: this.options.maxAgeMs,
          },
          attempts,
          this.random,
          failure.retryAfterMs,
        ),
      );
      const retryAt = toUtcIso(new Date(now.getTime() + delay));
      store.outbox.retryLater(ids, reason, retryAt);
      metrics?.deliveries.inc({ channel: channel.kind, result: 'retry' }, rows.length);
      logger.warn(
        { reason, attempts, retry_at: retryAt, alerts: rows.length },
        `delivery will be retried: ${reason}`,
      );
      return { result: { ...empty(), retrying: rows.length }, holdUntil: retryAt };
    }
  }

  private scrub(text: string): string {
    return redact(text, this.options.secrets ?? []);
  }

  private observe(): void {
    const counts = this.deps.store.outbox.counts();
    for (const [status, n] of Object.entries(counts)) this.deps.metrics?.outbox.set({ status }, n);
  }
}
