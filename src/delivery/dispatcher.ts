/**
 * The dispatcher: takes due outbox rows and sends them through their channel, each
 * target in a lane of its own.
 *
 * - Each target progresses on its own: the dispatcher claims every due row a target has
 *   waiting (so what waits together goes out as digests, however many other targets a
 *   burst wrote to) and hands them to a lane that sends them in order (see `sender.ts`).
 *   It reads the outbox again only when something may have become ready: new rows were
 *   written (`wake`), a row fell due, or a lane ended that left rows for later or had
 *   rows queued behind it; so a burst of a thousand targets costs a few reads of the
 *   outbox, not one per target. A slow or stuck target holds back only its own later
 *   alerts; every other target's go out on time while it is in flight. A target is
 *   never claimed twice while its lane runs.
 * - Every request of an attempt has a total deadline, connect to complete answer, which
 *   the channel starts once its pacing lets the request go, on the dispatcher's deadline
 *   clock; one that runs out is a temporary failure, retried with backoff.
 * - A row is claimed (committed) before its send and marked sent only after the
 *   platform confirmed it, with what the platform answered. Claims left by a crash are
 *   released on start, and those of a lane or pass that failed (the database, not a
 *   platform) right after it, so those rows are sent again: at-least-once, with
 *   duplicates only for what was in flight.
 * - A temporary failure is retried with backoff, or after the platform's `Retry-After`;
 *   the target's later alerts wait behind it, new ones included. A permanent failure, or
 *   a temporary one older than the maximum age, makes the row dead with its reason and
 *   kind, logged once and counted (the decision: `retry-policy.ts`).
 * - A row whose stored alert cannot be read back (not JSON, or not an alert this
 *   pipewatch renders: `alerts/outbox.ts` checks each) is dead before any attempt, kind
 *   `UNREADABLE`, with the field at fault; the rows around it go on.
 * - Only the leader sends (PostgreSQL: the outbox's writes are fenced by its lease).
 *   When one is refused because another replica took the lease (`not_leader`), sending
 *   stops at once: the sends in flight are cut short, nothing more is written or counted
 *   as a failure, it is logged once, `onNotLeader` hears it, and `run` or `drain`
 *   returns. What this replica had claimed, the new leader releases and sends again: at
 *   most one duplicate per target. `run` may be called again once it returned (leader
 *   again); one at a time.
 */
import { checkDeliveries, type OutboxRow } from '../alerts/outbox.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS } from '../channels/deadline.js';
import type { ChannelSet } from '../channels/types.js';
import { targetKey } from '../domain/targets.js';
import type { RetryPolicy } from '../lib/backoff.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { toUtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import type { DatabaseError } from '../store/database.js';
import { Leadership } from './leadership.js';
import { type DeliveryMetrics, type DeliveryWatch, type Outcomes, Sender } from './sender.js';

export { digests } from './sender.js';

export interface DispatcherOptions {
  /** Rows for one target due within this many milliseconds of each other form one digest. */
  digestWindowMs: number;
  /** A row failing temporarily this long after it was decided goes dead. */
  maxAgeMs: number;
  /** Total time of each request of an attempt, connect to complete answer; default 30 s. */
  timeoutMs?: number;
  /** Backoff between attempts of one row. */
  retry?: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;
  /** Targets claimed at a time (each with up to 50 of its rows); more are claimed in turn. */
  batchTargets?: number;
  /** Values that must never be written anywhere (tokens, passwords), scrubbed from reasons. */
  secrets?: readonly string[];
  random?: () => number;
}

export interface DispatcherDeps {
  /** The outbox, and the thread references channels keep (`threads`). */
  store: AsyncStore;
  channels: ChannelSet;
  /** The outbox's time: what is due, retries, ages. */
  clock: Clock;
  /**
   * The time attempt deadlines run on: real time by default, since platforms answer in
   * real time even when the outbox's clock runs faster (the demo); tests inject theirs.
   */
  deadlineClock?: Clock;
  logger: Logger;
  metrics?: DeliveryMetrics;
  /** Hears each target's confirmed and dead deliveries (outage alerts). */
  watch?: DeliveryWatch;
  /**
   * Hears, once each time, that an outbox write was refused because another replica
   * leads: sending has stopped, and `run` or `drain` returns. Must not throw.
   */
  onNotLeader?: (error: DatabaseError) => void;
}

/** What one drain did. */
export interface DispatchResult {
  /** Alerts confirmed by their platform. */
  sent: number;
  /** Messages sent (a digest is one message for many alerts). */
  messages: number;
  /** Alerts waiting for a retry at the end. */
  retrying: number;
  /** Alerts given up on. */
  dead: number;
}

/** After a pass failed (the database, not a platform), the next one waits this long. */
const PAUSE_AFTER_FAILURE_MS = 5_000;
/**
 * The outbox gauge's sent and dead counts read every row; they are read again at most
 * this often (the pending count, through the index, at every look).
 */
const RECOUNT_EVERY_MS = 60_000;
const DEFAULT_RETRY = { baseDelayMs: 5_000, maxDelayMs: 15 * 60_000 };

const UNCOUNTED: Outcomes = { sent() {}, retrying() {}, dead() {} };

/** Counts what lanes report while a drain runs. */
class Tally implements Outcomes {
  private readonly waiting = new Set<number>();
  readonly result: DispatchResult = { sent: 0, messages: 0, retrying: 0, dead: 0 };

  sent(ids: readonly number[], messages: number): void {
    this.result.sent += ids.length;
    this.result.messages += messages;
    for (const id of ids) this.waiting.delete(id);
  }
  retrying(ids: readonly number[]): void {
    for (const id of ids) this.waiting.add(id);
  }
  dead(ids: readonly number[]): void {
    this.result.dead += ids.length;
    for (const id of ids) this.waiting.delete(id);
  }
  final(): DispatchResult {
    return { ...this.result, retrying: this.waiting.size };
  }
}

export class Dispatcher {
  private readonly sender: Sender;
  /** The lane of each target in flight, by target key. */
  private readonly lanes = new Map<string, Promise<void>>();
  /** Failures of lanes (the database), not yet handled by the loop. */
  private readonly failures: unknown[] = [];
  /** Where lanes report: a drain's tally, or nowhere while the daemon runs. */
  private tally: Outcomes = UNCOUNTED;
  private wakeUp: AbortController | undefined;
  private woken = false;
  /** Something may be ready that the last look did not see: look again. */
  private dirty = true;
  /** Targets (keys) in flight with rows waiting behind them, as the last look saw. */
  private behind = new Set<string>();
  /** When the last look found the next row due (clock milliseconds); null: none. */
  private next: number | null = null;
  /** When the outbox was last counted whole (clock milliseconds), and what it held. */
  private counted: { at: number; counts: Record<string, number> } | undefined;
  /** Whether this replica still leads, since the start of this `run` or `drain`. */
  private readonly leadership: Leadership;
  /** Whether a `run` or `drain` is under way: one at a time. */
  private busy = false;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly options: DispatcherOptions,
  ) {
    this.leadership = new Leadership(deps.logger, deps.onNotLeader);
    this.sender = new Sender(
      { ...deps, deadlineClock: deps.deadlineClock ?? systemClock },
      {
        digestWindowMs: options.digestWindowMs,
        maxAgeMs: options.maxAgeMs,
        timeoutMs: options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
        retry: options.retry ?? DEFAULT_RETRY,
        secrets: options.secrets ?? [],
        random: options.random ?? Math.random,
      },
    );
  }

  /**
   * Returns rows whose sending ended without an outcome (a crash, a failed pass) to the
   * queue; rows of lanes still in flight keep their claims. Call once before sending.
   */
  async recover(): Promise<number> {
    const released = await this.deps.store.outbox.releaseClaims(toUtcIso(this.deps.clock.now()), [
      ...this.lanes.keys(),
    ]);
    this.dirty = true;
    if (released > 0)
      this.deps.logger.warn(
        { released },
        `delivery: ${released} alert${released === 1 ? ' was' : 's were'} in flight without an outcome and will be sent again`,
      );
    return released;
  }

  /** Sends every row due now, and waits for every target it started; returns what happened. */
  dispatchDue(signal?: AbortSignal): Promise<DispatchResult> {
    return this.drain(0, signal);
  }

  /**
   * Sends what is due and waits for what falls due within `boundMs` (retries, the
   * platform's `Retry-After`) and for every lane to end; rows due later stay for the
   * next run. A failure of the database ends it, once no lane is in flight.
   */
  async drain(boundMs: number, signal?: AbortSignal): Promise<DispatchResult> {
    const until = this.deps.clock.now().getTime() + boundMs;
    const tally = new Tally();
    const stop = this.begin(signal);
    this.tally = tally;
    try {
      for (;;) {
        this.throwFailure();
        if (this.leadership.lost) break;
        signal?.throwIfAborted();
        if (this.dirty) await this.guarded(() => this.look(stop));
        if (this.leadership.lost) break;
        const next = this.next;
        const soon = next !== null && next <= until;
        if (!soon && this.lanes.size === 0) break;
        const now = this.deps.clock.now().getTime();
        await this.rest(soon ? Math.max(0, next - now) : undefined, stop);
      }
    } finally {
      await this.settle();
      this.tally = UNCOUNTED;
      this.busy = false;
    }
    this.throwFailure();
    if (!this.leadership.lost) await this.observe(true);
    return tally.final();
  }

  /**
   * Sends as rows fall due until `signal` aborts, or until a write says another replica
   * leads; `wake` makes it look at once. May be called again once it returned.
   */
  async run(signal: AbortSignal, idleMs = 30_000): Promise<void> {
    const stop = this.begin(signal);
    let failed = false;
    try {
      await this.guarded(() => this.recover());
      while (!stop.aborted) {
        try {
          // What a failed pass or lane claimed is not in flight: it goes back to the queue.
          if (failed) await this.guarded(() => this.recover());
          failed = false;
          this.throwFailure();
          if (this.dirty) await this.guarded(() => this.look(stop));
          else if (this.lanes.size === 0) await this.observe(false);
        } catch (error) {
          if (stop.aborted) break;
          failed = true;
          this.deps.logger.error({ err: error }, 'delivery pass failed; trying again shortly');
          // Lanes ending must not cut the pause short.
          await this.deps.clock.sleep(PAUSE_AFTER_FAILURE_MS, stop).catch(() => undefined);
          continue;
        }
        if (stop.aborted) break;
        const next = this.next;
        const now = this.deps.clock.now().getTime();
        await this.rest(next === null ? idleMs : Math.min(idleMs, Math.max(0, next - now)), stop);
      }
    } finally {
      await this.settle();
      this.busy = false;
    }
  }

  /**
   * Starts a `run` or `drain`: refuses a second at once, forgets what the last one left
   * (a failure, a lost lead), and returns the signal that stops it: `signal`, or a
   * write refused because another replica leads.
   */
  private begin(signal: AbortSignal | undefined): AbortSignal {
    if (this.busy)
      throw new Error('the dispatcher is already sending: stop its run before starting another');
    this.busy = true;
    this.failures.length = 0;
    // Asked to send: rows may have been written without a wake.
    this.dirty = true;
    this.woken = false;
    return this.leadership.begin(signal);
  }

  /** Runs a pass; a refusal because another replica leads stops sending instead of failing. */
  private async guarded(pass: () => Promise<unknown>): Promise<void> {
    try {
      await pass();
    } catch (error) {
      if (!this.leadership.lose(error, this.lanes.size)) throw error;
    }
  }

  /** New rows were written: look at once rather than at the next timer. */
  wake(): void {
    this.dirty = true;
    this.poke();
  }

  /** Ends the loop's rest, to look again if something may be ready, or to end a drain. */
  private poke(): void {
    this.woken = true;
    this.wakeUp?.abort();
  }

  /** Reads the outbox: starts a lane for each target with rows ready, notes what is next due. */
  private async look(signal: AbortSignal): Promise<void> {
    this.dirty = false;
    this.behind.clear();
    while (await this.pump(signal)) {
      // More targets than one read takes: the next read finds the rest.
    }
    this.next = await this.nextDue();
    await this.observe(false);
  }

  /**
   * Claims what is ready for up to `batchTargets` targets and starts a lane for each;
   * whether more targets had rows ready.
   */
  private async pump(signal: AbortSignal): Promise<boolean> {
    // Stopped (another replica leads, or asked to) while the last read's lanes started.
    if (signal.aborted) return false;
    const { store, clock } = this.deps;
    const now = toUtcIso(clock.now());
    const ready = await store.outbox.ready(now, this.options.batchTargets ?? 200);
    for (const key of ready.behind) this.behind.add(key);
    const checked = checkDeliveries(ready.rows);
    const unreadable = [...ready.unreadable, ...checked.unreadable];
    if (unreadable.length > 0) {
      // Never sendable: dead now, and what waited behind them may be ready.
      await this.sender.unreadable(unreadable, this.tally);
      this.dirty = true;
    }
    const byTarget = new Map<string, OutboxRow[]>();
    for (const row of checked.rows) {
      const key = targetKey(row.target);
      // A lane about to end has settled its rows but still holds its target.
      if (this.lanes.has(key)) {
        this.behind.add(key);
        continue;
      }
      const list = byTarget.get(key);
      if (list) list.push(row);
      else byTarget.set(key, [row]);
    }
    if (byTarget.size === 0) return false;
    const ids = [...byTarget.values()].flat().map((r) => r.id);
    // Committed before any send; each lane writes its outcomes after its sends.
    await store.transaction(() => store.outbox.claim(ids, now));
    for (const [key, rows] of byTarget) {
      const lane = this.sender
        .sendTarget(rows, this.tally, signal)
        .then((left) => {
          // Rows it left for a later attempt fall due on a time of their own.
          if (left) this.dirty = true;
        })
        .catch((error: unknown) => {
          if (!this.leadership.lose(error, this.lanes.size)) this.failures.push(error);
        })
        .finally(() => {
          this.lanes.delete(key);
          if (this.behind.delete(key)) this.dirty = true;
          this.poke();
        });
      this.lanes.set(key, lane);
    }
    return ready.more;
  }

  /** When `pump` next has something to start (clock milliseconds); null: nothing waits. */
  private async nextDue(): Promise<number | null> {
    const at = await this.deps.store.outbox.nextReadyAt();
    return at === null ? null : Date.parse(at);
  }

  /**
   * Waits `ms` on the clock, or without a timer (`undefined`) until woken: a lane in
   * flight ends with a wake, and a clock that does not wait (tests) must not spin.
   */
  private async rest(ms: number | undefined, signal: AbortSignal): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return;
    }
    const wakeUp = new AbortController();
    this.wakeUp = wakeUp;
    const stop = AbortSignal.any([signal, wakeUp.signal]);
    try {
      if (ms !== undefined) {
        await this.deps.clock.sleep(ms, stop);
        // The time passed: a retry may have fallen due.
        this.dirty = true;
      } else if (!stop.aborted)
        await new Promise<void>((resolve) =>
          stop.addEventListener('abort', () => resolve(), { once: true }),
        );
    } catch {
      // Woken, or stopping: the caller's loop decides.
    } finally {
      this.wakeUp = undefined;
      this.woken = false;
    }
  }

  /** Waits for every lane in flight to end. */
  private async settle(): Promise<void> {
    while (this.lanes.size > 0) await Promise.allSettled([...this.lanes.values()]);
  }

  /** Throws the first failure of a lane since the last look (the others said the same). */
  private throwFailure(): void {
    if (this.failures.length === 0) return;
    const [first] = this.failures;
    this.failures.length = 0;
    throw first;
  }

  /**
   * Sets the outbox gauge: pending at once; sent and dead from a count of every row, made
   * again when `whole` or once `RECOUNT_EVERY_MS` has passed (retention removes rows too).
   */
  private async observe(whole: boolean): Promise<void> {
    const { metrics, store, clock } = this.deps;
    if (!metrics) return;
    const now = clock.now().getTime();
    if (whole || !this.counted || now - this.counted.at >= RECOUNT_EVERY_MS)
      this.counted = { at: now, counts: await store.outbox.counts() };
    const counts = { ...this.counted.counts, pending: await store.outbox.pending() };
    for (const [status, n] of Object.entries(counts)) metrics.outbox.set({ status }, n);
  }
}
