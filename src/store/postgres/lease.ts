/**
 * The leader lease: of the replicas sharing one PostgreSQL database, the one holding the
 * lease is the leader (it polls, decides and sends), the others are standbys. The lease
 * is one row of `leader_lease`; its expiry is the database's clock (`now()`) alone, so
 * the replicas' clocks, however skewed, never decide who leads.
 *
 * - A standby tries to take the lease every `renewMs` (a third of the lease), sooner when
 *   the database says the lease ends sooner; it takes it only once expired (or released),
 *   and each takeover increments `term`, the fencing token. The new leader is told who
 *   held it before and at which term (`RoleChange.previous`), so it can release exactly
 *   that term's claims.
 * - The leader renews every `renewMs`, retrying sooner after a failure. It steps down by
 *   its own monotonic clock at its local deadline: when its last successful renewal was
 *   sent, plus the lease, less a margin. The database set that lease's end from its own
 *   `now()`, read after the renewal was sent, so the local deadline falls at least the
 *   margin before it: the leader has stopped before anyone else can take over, however
 *   long its renewals hang, and the margin covers what the leader must still finish.
 * - A leader that finds the lease taken (paused, cut off, resumed) becomes a standby.
 * - Writes that only the leader may make carry `fencedBy()`: they change nothing once
 *   the term they were decided under no longer holds the lease.
 * - Queries go through a pool of their own (give it `max: 1`): a renewal never waits
 *   behind the store's work. A connection dropped (a server restart, `pg_terminate_
 *   backend`) is replaced at the next query; each query, the heartbeat
 *   too, is bounded by `renewMs`.
 */
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { Clock } from '../../lib/clock.js';
import { systemClock } from '../../lib/clock.js';
import { errorCode, errorMessage } from '../../lib/error-text.js';
import { DatabaseError } from '../database.js';
import { type Fence, fenceValues } from './fence.js';
import { heartbeat, type ReplicaIdentity, type Role, removeReplica } from './replicas.js';

/** The lease's length by default (PRODUCT.md: `PIPEWATCH_LEADER_LEASE`, 15 s). */
export const DEFAULT_LEASE_MS = 15_000;

/** The name of the one lease pipewatch takes. */
export const LEADER_LEASE = 'leader';

export type { Role } from './replicas.js';

/** A change of this replica's role. */
export interface RoleChange {
  role: Role;
  /** The term taken (leader), or the one left (standby). */
  term: number;
  /**
   * On a takeover: the holder and term of the lease before, whose claims the new leader
   * releases; none when the lease is new.
   */
  previous?: { holder: string; term: number };
  /**
   * Why a leader became a standby: its renewals did not get through in time (`late`),
   * another holds the lease (`lost`), or it was stopped (`stopped`).
   */
  reason?: 'late' | 'lost' | 'stopped';
}

/** What the lease reports, for logs and metrics. */
export interface LeaseEvents {
  role: [RoleChange];
  /** The leader renewed; its local deadline is `deadline` (on the lease's clock). */
  renewed: [{ term: number; deadline: Date }];
  /** A standby found the lease held by another. */
  held: [{ holder: string; term: number }];
  /** A query failed (the database unreachable): tried again at the next turn. */
  failed: [DatabaseError];
}

/** `id` is the lease's holder: one of its own for each process that runs (a UUID). */
export interface LeaseOptions extends ReplicaIdentity {
  /** A pool of the lease's own (`createPool(url, { max: 1 })`). */
  pool: pg.Pool;
  /** Which lease; default `LEADER_LEASE`. */
  name?: string;
  /** The lease's length; default `DEFAULT_LEASE_MS`. */
  leaseMs?: number;
  /**
   * The local clock for the schedule and the deadline: monotonic by default (the wall
   * clock may jump); tests give a `ManualClock`.
   */
  clock?: Clock;
}

/** Node's monotonic clock, as a `Clock`: a wall-clock jump moves no deadline. */
const monotonicClock: Clock = {
  now: () => new Date(performance.timeOrigin + performance.now()),
  sleep: systemClock.sleep,
};

/**
 * Takes the lease when it is free: new, expired, released, or still this replica's own
 * from before it stepped down. The row keeps who held it before the takeover, so the
 * previous holder and term come back in the same statement, exactly those of the row it
 * replaced, however many contenders raced for it.
 */
const ACQUIRE = `
  INSERT INTO leader_lease AS l (name, holder, term, acquired_at, renewed_at, expires_at)
  VALUES ($1, $2, 1, now(), now(), now() + $3 * interval '1 millisecond')
  ON CONFLICT (name) DO UPDATE
    SET holder = excluded.holder, term = l.term + 1, previous_holder = l.holder,
        acquired_at = now(), renewed_at = now(), expires_at = excluded.expires_at
    WHERE l.expires_at <= now() OR l.holder = excluded.holder
  RETURNING l.term, l.previous_holder`;

const CURRENT = `
  SELECT holder, term, greatest(0, ceil(extract(epoch FROM expires_at - now()) * 1000))::bigint
    AS remaining_ms
  FROM leader_lease WHERE name = $1`;

const RENEW = `
  UPDATE leader_lease SET renewed_at = now(), expires_at = now() + $4 * interval '1 millisecond'
  WHERE name = $1 AND holder = $2 AND term = $3 AND expires_at > now()`;

const RELEASE = `
  UPDATE leader_lease SET expires_at = now()
  WHERE name = $1 AND holder = $2 AND term = $3 AND expires_at > now()`;

/** One replica's part in a leader lease: see the file's comment. */
export class LeaderLease extends EventEmitter<LeaseEvents> {
  readonly name: string;
  readonly leaseMs: number;
  /** How often the leader renews and a standby tries: a third of the lease. */
  readonly renewMs: number;
  /** How long before the lease's end the leader steps down: a fifth of the lease. */
  readonly marginMs: number;
  /** How soon a failed renewal is tried again. */
  readonly retryMs: number;
  private readonly pool: pg.Pool;
  private readonly clock: Clock;
  private readonly identity: ReplicaIdentity;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private held: { term: number; deadline: number } | undefined;
  private deadlineWatch: AbortController | undefined;
  /** What a turn found, reported once its next wait has begun (see `run`). */
  private readonly reports: Array<() => void> = [];

  constructor(options: LeaseOptions) {
    super();
    this.pool = options.pool;
    this.name = options.name ?? LEADER_LEASE;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!(this.leaseMs >= 10)) throw new RangeError(`a lease of ${this.leaseMs} ms is too short`);
    this.renewMs = Math.floor(this.leaseMs / 3);
    this.marginMs = Math.floor(this.leaseMs / 5);
    this.retryMs = Math.max(1, Math.floor(this.leaseMs / 15));
    this.clock = options.clock ?? monotonicClock;
    this.identity = { id: options.id, host: options.host, pid: options.pid };
  }

  /** This replica's role now. */
  get role(): Role {
    return this.held ? 'leader' : 'standby';
  }

  /**
   * The fence of this replica's term while it leads; none while it is a standby. Its
   * transactions may sit idle for the margin at most: paused that long, this replica
   * steps down, and its successor finds nothing of it still locked.
   */
  fence(): Fence | undefined {
    return (
      this.held && {
        name: this.name,
        holder: this.identity.id,
        term: this.held.term,
        idleMs: this.marginMs,
      }
    );
  }

  /** Starts taking part: the first attempt at the lease is made at once. */
  start(): void {
    this.running ??= this.run();
  }

  /**
   * Stops taking part: a leader steps down and releases the lease, so that a standby
   * takes it at its next attempt rather than at its end; the replica leaves the list.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    const fence = this.fence();
    if (fence) {
      this.stepDown('stopped');
      this.flush();
      await this.query(RELEASE, fenceValues(fence)).catch(() => {});
    }
    await removeReplica(this.pool, this.identity.id, this.renewMs).catch(() => {});
  }

  private now(): number {
    return this.clock.now().getTime();
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      const delay = this.held ? await this.renew() : await this.acquire();
      if (signal.aborted) break;
      // The wait begins before the turn is reported: whoever hears of it (a test moving
      // its clock) finds the lease already waiting for its next turn.
      const waiting = this.clock.sleep(delay, signal).catch(() => {});
      this.flush();
      await waiting;
    }
    this.flush();
  }

  private report<E extends keyof LeaseEvents>(event: E, ...args: LeaseEvents[E]): void {
    this.reports.push(() => this.emit(event as keyof LeaseEvents, ...(args as [never])));
  }

  private flush(): void {
    for (const report of this.reports.splice(0)) report();
  }

  /** A standby's attempt; how long until the next. */
  private async acquire(): Promise<number> {
    const sent = this.now();
    try {
      const { rows } = await this.query<{
        term: number;
        previous_holder: string | null;
      }>(ACQUIRE, [this.name, this.identity.id, this.leaseMs]);
      // Taken even while stopping: `stop` then releases it, rather than leave it held.
      const won = rows[0];
      if (won) {
        const previous =
          won.previous_holder !== null
            ? { holder: won.previous_holder, term: won.term - 1 }
            : undefined;
        this.takeOver(won.term, sent, previous);
        await this.beat();
        return this.renewMs;
      }
      const current = (
        await this.query<{ holder: string; term: number; remaining_ms: number }>(CURRENT, [
          this.name,
        ])
      ).rows[0];
      await this.beat();
      if (!current) return this.retryMs;
      this.report('held', { holder: current.holder, term: current.term });
      return Math.max(1, Math.min(this.renewMs, current.remaining_ms));
    } catch (error) {
      this.report('failed', asDatabaseError(error));
      return this.renewMs;
    }
  }

  /** The leader's renewal; how long until the next. */
  private async renew(): Promise<number> {
    const held = this.held;
    if (!held) return 0;
    if (this.now() >= held.deadline) {
      this.stepDown('late');
      return 0;
    }
    const sent = this.now();
    try {
      const result = await this.query(RENEW, [
        this.name,
        this.identity.id,
        held.term,
        this.leaseMs,
      ]);
      // Stepped down meanwhile (the deadline passed): a late answer changes nothing.
      if (this.held !== held) return 0;
      if (result.rowCount === 0) {
        this.stepDown('lost');
        return 0;
      }
      this.extend(held, sent + this.leaseMs - this.marginMs);
      this.report('renewed', { term: held.term, deadline: new Date(held.deadline) });
      await this.beat();
      return this.renewMs;
    } catch (error) {
      this.report('failed', asDatabaseError(error));
      return this.retryMs;
    }
  }

  private takeOver(term: number, sent: number, previous: RoleChange['previous']): void {
    const held = { term, deadline: 0 };
    this.held = held;
    this.extend(held, sent + this.leaseMs - this.marginMs);
    this.report('role', { role: 'leader', term, ...(previous ? { previous } : {}) });
  }

  /** Moves the local deadline, and the watch that steps down when it passes. */
  private extend(held: { term: number; deadline: number }, deadline: number): void {
    held.deadline = deadline;
    this.deadlineWatch?.abort();
    const watch = new AbortController();
    this.deadlineWatch = watch;
    this.clock.sleep(deadline - this.now(), watch.signal).then(
      () => {
        if (this.held !== held || held.deadline !== deadline) return;
        this.stepDown('late');
        this.flush();
      },
      () => {},
    );
  }

  private stepDown(reason: NonNullable<RoleChange['reason']>): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    this.deadlineWatch?.abort();
    this.deadlineWatch = undefined;
    this.report('role', { role: 'standby', term: held.term, reason });
  }

  private async beat(): Promise<void> {
    await heartbeat(this.pool, this.identity, this.role, this.renewMs);
  }

  private query<R extends pg.QueryResultRow>(
    text: string,
    values: unknown[],
  ): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>({ text, values, query_timeout: this.renewMs } as pg.QueryConfig);
  }
}

function asDatabaseError(error: unknown): DatabaseError {
  if (error instanceof DatabaseError) return error;
  return new DatabaseError(
    `the leader lease could not reach the database: ${errorMessage(error) || errorCode(error)}`,
    { cause: error },
  );
}
