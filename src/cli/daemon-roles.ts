/**
 * Who leads: of the daemons sharing one store, only the leader polls, decides and sends;
 * the others stand by, serving HTTP, chat and unsubscribe links from the shared store.
 *
 * - On PostgreSQL the leader is whoever holds the lease (`store/postgres/lease.ts`). Each
 *   term it holds is one run of the scheduler and the dispatcher, begun when it takes the
 *   lease and stopped when it loses it, or when a fenced write says another replica took
 *   it (`onNotLeader`); a term ends before the next may begin. The dispatcher's first pass
 *   releases the claims the former leader left, and only those.
 * - On SQLite one process owns the file (the run lock), so it leads from start to stop
 *   (`SoleLeader`): the same path, one term.
 *
 * Every change of role is logged (warn when leadership is lost) and counted in
 * `/metrics`; `/healthz` shows the role now.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { Metrics } from '../http/metrics.js';
import { errorMessage } from '../lib/error-text.js';
import type { Logger } from '../lib/logger.js';
import type { Fence } from '../store/postgres/fence.js';
import type { LeaderLease, Role, RoleChange } from '../store/postgres/lease.js';
import type { ReplicaIdentity } from '../store/postgres/replicas.js';

/** What says whether this process leads: the lease, or `SoleLeader`. */
export interface Lead {
  readonly role: Role;
  /** The term it leads under, for fenced writes; none while a standby. */
  fence(): Fence | undefined;
  start(): void;
  stop(): Promise<void>;
  on(event: 'role', listener: (change: RoleChange) => void): unknown;
  off(event: 'role', listener: (change: RoleChange) => void): unknown;
}

/** The one process on a SQLite file: the leader from its start, at term 1, to its stop. */
export class SoleLeader extends EventEmitter<{ role: [RoleChange] }> implements Lead {
  readonly role: Role = 'leader';

  fence(): Fence | undefined {
    return undefined;
  }

  start(): void {
    this.emit('role', { role: 'leader', term: 1 });
  }

  async stop(): Promise<void> {}
}

/**
 * This process as a replica: its host and process id, and an id new at each start (the
 * lease's holder, as logs name it) that says both, with a random part so that a process id
 * reused after a restart, or the same one in two containers, is never the same replica.
 */
export function thisReplica(): ReplicaIdentity {
  const host = hostname();
  return { id: `${host}/${process.pid}/${randomUUID().slice(0, 8)}`, host, pid: process.pid };
}

/** What a term of leadership runs until its signal aborts: the scheduler, the dispatcher. */
export type TermWork = (signal: AbortSignal, change: RoleChange) => Promise<void>;

/** Runs `work` for each term this replica leads, one after another; see the file's comment. */
export class Terms {
  private current: AbortController | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly lead: Lead,
    private readonly deps: { logger: Logger; metrics: Metrics; replicated: boolean },
    private readonly work: TermWork,
  ) {
    deps.metrics.leader.set(lead.role === 'leader' ? 1 : 0);
  }

  /**
   * Takes part until `signal` aborts: starts the lead, runs a term whenever it leads.
   * Resolves once the last term's work has ended and the lead has stopped (the lease
   * released, for a standby to take at once).
   */
  async run(signal: AbortSignal): Promise<void> {
    const onRole = (change: RoleChange) => this.changed(change, signal);
    this.lead.on('role', onRole);
    try {
      this.lead.start();
      if (!signal.aborted)
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
    } finally {
      this.endTerm();
      await this.chain;
      // Stopped after the last term ended, so a successor never overlaps it; heard, so the
      // step-down is logged too.
      await this.lead.stop();
      this.lead.off('role', onRole);
    }
  }

  /**
   * Ends the term under way, if any: a fenced write was refused, so another replica has
   * taken the lease, though this one's lease has not noticed yet. It will, at its next
   * renewal, and stand by; it may lead again only through a new term.
   */
  endTerm(): void {
    this.current?.abort();
    this.current = undefined;
  }

  private changed(change: RoleChange, signal: AbortSignal): void {
    this.report(change);
    this.endTerm();
    if (change.role !== 'leader' || signal.aborted) return;
    const term = new AbortController();
    this.current = term;
    const stop = AbortSignal.any([signal, term.signal]);
    this.chain = this.chain.then(async () => {
      if (stop.aborted) return;
      try {
        await this.work(stop, change);
      } catch (error) {
        this.deps.logger.error(
          { err: error, term: change.term },
          `the leader's work ended with an error: ${errorMessage(error)}`,
        );
      }
    });
  }

  private report(change: RoleChange): void {
    const { logger, metrics, replicated } = this.deps;
    metrics.leader.set(change.role === 'leader' ? 1 : 0);
    if (!replicated) return;
    metrics.leaderChanges.inc();
    const fields = {
      role: change.role,
      term: change.term,
      ...(change.previous ? { previous: change.previous } : {}),
      ...(change.reason ? { reason: change.reason } : {}),
    };
    if (change.role === 'leader')
      logger.info(
        fields,
        change.previous
          ? `role: leader (term ${change.term}), taking over from ${change.previous.holder} (term ${change.previous.term}): polling, deciding and sending here now`
          : `role: leader (term ${change.term}): polling, deciding and sending here`,
      );
    else
      logger.warn(
        fields,
        `role: standby (term ${change.term} ended: ${REASONS[change.reason ?? 'lost']})`,
      );
  }
}

const REASONS: Record<NonNullable<RoleChange['reason']>, string> = {
  late: 'the lease could not be renewed in time, so this replica stopped polling and sending before it ran out',
  lost: 'another replica holds the lease',
  stopped: 'this replica is stopping, and released the lease',
};

/**
 * Tries once to lead, for `run --once`: true when this replica took the lease (or leads
 * alone, on SQLite); the holder when another leads. A database that cannot be reached
 * rejects.
 */
export function leadOnce(lead: Lead | LeaderLease): Promise<true | { holder: string }> {
  if (lead.role === 'leader') return Promise.resolve(true);
  const lease = lead as LeaderLease;
  return new Promise((resolve, reject) => {
    const done = () => {
      lease.off('role', onRole);
      lease.off('held', onHeld);
      lease.off('failed', onFailed);
    };
    const onRole = (change: RoleChange) => {
      if (change.role !== 'leader') return;
      done();
      resolve(true);
    };
    const onHeld = (held: { holder: string }) => {
      done();
      resolve({ holder: held.holder });
    };
    const onFailed = (error: Error) => {
      done();
      reject(error);
    };
    lease.on('role', onRole);
    lease.on('held', onHeld);
    lease.on('failed', onFailed);
    lease.start();
  });
}
