/**
 * Sending one target's claimed deliveries: its messages in order (digests of what fell
 * due together), each request bounded by the delivery timeout, each outcome written to
 * the outbox at once, after the send: sent with the platform's answer, retried later
 * with backoff (the target's remaining messages waiting with it), or dead with its
 * reason. No transaction is open while a message is in flight.
 *
 * Once the lane's signal is aborted because this replica no longer leads (its reason a
 * `not_leader` `DatabaseError`), nothing more is sent or written: the lane throws that
 * reason, and the new leader sends again what it had claimed.
 */

import { setImmediate } from 'node:timers/promises';
import type { Counter, Gauge } from 'prom-client';
import type { OutboxRow } from '../alerts/outbox.js';
import type { Alert, Channel, ChannelSet, Threads } from '../channels/types.js';
import { DeliveryError, DeliveryErrorCode } from '../channels/types.js';
import type { Target } from '../domain/targets.js';
import type { RetryPolicy } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import { errorMessage } from '../lib/error-text.js';
import type { Logger } from '../lib/logger.js';
import { type Redact, redactor } from '../lib/redact.js';
import { toUtcIso, type UtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import { isNotLeader } from '../store/database.js';
import type { UnreadableDelivery } from '../store/outbox.js';
import { logDead, logSent, logUnreadable } from './delivery-log.js';
import { decideRetry } from './retry-policy.js';
import { readablePastDamage } from './threads.js';

/** The metrics delivery keeps (the daemon's `Metrics` has them, with the others). */
export interface DeliveryMetrics {
  deliveries: Counter<'channel' | 'result'>;
  deliveryMessages: Counter<'channel'>;
  outbox: Gauge<'status'>;
}

/**
 * Hears which targets take deliveries and which fail them for good, for the outage
 * alerts (`alerts/outage-watch.ts`). Its methods must not throw.
 */
export interface DeliveryWatch {
  delivered(target: Target): void;
  /** `reason` has its secrets removed. */
  failedForGood(target: Target, reason: string, code: string | null): void;
}

/** What sending needs; see `DispatcherDeps`. */
export interface SenderDeps {
  /** The outbox, and the thread references channels read and write mid-send (`threads`). */
  store: AsyncStore;
  channels: ChannelSet;
  /** The outbox's time: decisions, retries, ages. */
  clock: Clock;
  /** The time attempt deadlines run on. */
  deadlineClock: Clock;
  logger: Logger;
  metrics?: DeliveryMetrics | undefined;
  watch?: DeliveryWatch | undefined;
}

/** How sending behaves; see `DispatcherOptions`. */
export interface SenderOptions {
  digestWindowMs: number;
  maxAgeMs: number;
  timeoutMs: number;
  retry: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;
  secrets: readonly string[];
  random: () => number;
}

let lastTurn: Promise<unknown> = Promise.resolve();

/**
 * Resolves in a turn of the event loop of its own, after every earlier caller's: one
 * message is rendered and handed to its platform a turn. A sync that queues alerts for
 * hundreds of targets starts hundreds of lanes at once; rendering and posting all their
 * first messages in one turn held `/healthz` and chat commands for seconds.
 */
function ownTurn(): Promise<unknown> {
  const turn = lastTurn.then(() => setImmediate());
  lastTurn = turn;
  return turn;
}

/**
 * Throws the reason `signal` was aborted for when it is that another replica leads:
 * what was claimed is then the new leader's to send, and nothing more is written.
 */
function stopIfNotLeader(signal: AbortSignal | undefined): void {
  if (signal?.aborted && isNotLeader(signal.reason)) throw signal.reason;
}

/** What happened to some deliveries, as it happened. */
export interface Outcomes {
  sent(ids: readonly number[], messages: number): void;
  retrying(ids: readonly number[]): void;
  dead(ids: readonly number[]): void;
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

/** Sends the deliveries of one target at a time; the dispatcher runs one per target. */
export class Sender {
  /** The one redaction, with the configured secrets, for reasons and answers kept or logged. */
  private readonly redact: Redact;
  /** The database's thread references, a damaged one read as none. */
  private readonly threads: Threads;

  constructor(
    private readonly deps: SenderDeps,
    private readonly options: SenderOptions,
  ) {
    this.redact = redactor(options.secrets);
    this.threads = readablePastDamage(deps.store.threads, deps.logger);
  }

  /**
   * One target's rows: its messages in order; the first temporary failure holds the rest.
   * Whether it left rows for a later attempt.
   */
  async sendTarget(rows: OutboxRow[], report: Outcomes, signal?: AbortSignal): Promise<boolean> {
    const [first] = rows;
    if (!first) return false;
    const { target } = first;
    const channel = this.deps.channels.for(target.kind) as Channel;
    const messages = digests(rows, this.options.digestWindowMs, Math.max(1, channel.maxDigest));
    for (const [i, message] of messages.entries()) {
      await ownTurn();
      stopIfNotLeader(signal);
      const holdUntil = await this.sendMessage(channel, target, message, report, signal);
      if (holdUntil === undefined) continue;
      const rest = messages.slice(i + 1).flat();
      if (rest.length > 0) {
        const ids = rest.map((r) => r.id);
        await this.deps.store.outbox.retryLater(
          ids,
          'waiting: an earlier alert to this target failed',
          holdUntil,
          false,
        );
        report.retrying(ids);
      }
      return true;
    }
    return false;
  }

  /** Sends one message; returns when the target's next attempt is due if it failed temporarily. */
  private async sendMessage(
    channel: Channel,
    target: Target,
    rows: OutboxRow[],
    report: Outcomes,
    signal?: AbortSignal,
  ): Promise<UtcIso | undefined> {
    const { store, clock, logger, metrics } = this.deps;
    const ids = rows.map((r) => r.id);
    const alerts: Alert[] = rows.map((r) => ({ key: r.key, payload: r.payload }));
    const started = clock.now();
    let delivered: Awaited<ReturnType<Channel['send']>>;
    try {
      delivered = await channel.send(target, alerts, {
        now: toUtcIso(started),
        threads: this.threads,
        ...(signal ? { signal } : {}),
        deadline: { ms: this.options.timeoutMs, clock: this.deps.deadlineClock },
      });
    } catch (error) {
      // Cut short because another replica leads: not this target's failure.
      stopIfNotLeader(signal);
      return this.failed(channel, target, rows, error, report);
    }
    const detail = this.scrub(delivered.detail);
    await store.outbox.markSent(ids, toUtcIso(clock.now()), detail);
    metrics?.deliveries.inc({ channel: channel.kind, result: 'sent' }, rows.length);
    metrics?.deliveryMessages.inc({ channel: channel.kind });
    logSent(logger, rows, detail, (text) => this.scrub(text));
    report.sent(ids, 1);
    this.deps.watch?.delivered(target);
    return undefined;
  }

  /** Records a failed attempt: dead, or due again after a backoff. */
  private async failed(
    channel: Channel,
    target: Target,
    rows: OutboxRow[],
    error: unknown,
    report: Outcomes,
  ): Promise<UtcIso | undefined> {
    const { store, clock, logger, metrics } = this.deps;
    const ids = rows.map((r) => r.id);
    const failure =
      error instanceof DeliveryError
        ? error
        : new DeliveryError(`${channel.kind}: ${errorMessage(error)}`, {
            code: DeliveryErrorCode.Unknown,
            permanent: false,
            cause: error,
          });
    if (!(error instanceof DeliveryError))
      logger.error({ err: error, channel: channel.kind }, 'delivery failed unexpectedly');
    const reason = this.scrub(failure.reason);
    const now = clock.now();
    const attempt = Math.max(...rows.map((r) => r.attempts)) + 1;
    const decision = decideRetry(
      {
        reason,
        permanent: failure.permanent,
        retryAfterMs: failure.retryAfterMs,
        nowMs: now.getTime(),
        oldestMs: Math.min(...rows.map((r) => Date.parse(r.created_at))),
        attempt,
      },
      this.options,
      this.options.random,
    );
    if (decision.dead) {
      await store.outbox.markDead(ids, decision.why, failure.code);
      metrics?.deliveries.inc({ channel: channel.kind, result: 'dead' }, rows.length);
      logDead(logger, rows, decision.why, failure.permanent, (text) => this.scrub(text));
      report.dead(ids);
      this.deps.watch?.failedForGood(target, decision.why, failure.code);
      return undefined;
    }
    const retryAt = toUtcIso(new Date(now.getTime() + decision.delayMs));
    await store.outbox.retryLater(ids, reason, retryAt, true, failure.code);
    metrics?.deliveries.inc({ channel: channel.kind, result: 'retry' }, rows.length);
    logger.warn(
      { reason, code: failure.code, attempts: attempt, retry_at: retryAt, alerts: rows.length },
      `delivery will be retried: ${reason}`,
    );
    report.retrying(ids);
    return retryAt;
  }

  /**
   * Deliveries whose stored alert cannot be read back: dead at once with the reason, in
   * one transaction, then as loud as any dead delivery (a log line, the metric, the
   * target's outage alert).
   */
  async unreadable(rows: readonly UnreadableDelivery[], report: Outcomes): Promise<void> {
    const { store, logger, metrics } = this.deps;
    const code = DeliveryErrorCode.Unreadable;
    const scrubbed = rows.map((row) => ({ ...row, reason: this.scrub(row.reason) }));
    await store.transaction(async () => {
      for (const row of scrubbed) await store.outbox.markDead([row.id], row.reason, code);
    });
    for (const row of scrubbed) {
      metrics?.deliveries.inc({ channel: row.target?.kind ?? 'unknown', result: 'dead' });
      logUnreadable(logger, row, (text) => this.scrub(text));
      report.dead([row.id]);
      if (row.target) this.deps.watch?.failedForGood(row.target, row.reason, code);
    }
  }

  private scrub(text: string): string {
    return this.redact(text);
  }
}
