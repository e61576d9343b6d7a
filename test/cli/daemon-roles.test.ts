/**
 * The daemon's terms of leadership: a term (the scheduler and the dispatcher) runs while
 * the replica leads and only then, each takeover is logged and counted, and a fenced write
 * refused ends the term at once. Real leases on the test PostgreSQL server, each replica
 * with a clock of its own; SQLite's sole leader runs one term from start to stop.
 */
import { once } from 'node:events';
import type pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SoleLeader, Terms, type TermWork } from '../../src/cli/daemon-roles.js';
import { Metrics } from '../../src/http/metrics.js';
import { createPool } from '../../src/store/postgres/connect.js';
import { LeaderLease, type RoleChange } from '../../src/store/postgres/lease.js';
import { migratePostgres } from '../../src/store/postgres/migrate.js';
import { capturedLogger } from '../support/captured-logger.js';
import { ManualClock } from '../support/clock.js';
import { usePostgresDatabase } from '../support/postgres.js';

/** A term's work that runs until its signal aborts, as the scheduler and dispatcher do. */
function recordedWork() {
  const terms: Array<{ change: RoleChange; signal: AbortSignal; ended: boolean }> = [];
  const work: TermWork = async (signal, change) => {
    const term = { change, signal, ended: false };
    terms.push(term);
    if (!signal.aborted) await once(signal, 'abort');
    term.ended = true;
  };
  return { terms, work };
}

async function metric(metrics: Metrics, name: string): Promise<number | undefined> {
  const m = await metrics.registry.getSingleMetric(name)?.get();
  return m?.values[0]?.value;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('terms of leadership on SQLite', () => {
  it('runs one term from start to stop, leader throughout, with no change to log', async () => {
    const { logger, lines } = capturedLogger();
    const metrics = new Metrics({ processMetrics: false });
    const { terms, work } = recordedWork();
    const stop = new AbortController();
    const running = new Terms(new SoleLeader(), { logger, metrics, replicated: false }, work).run(
      stop.signal,
    );
    await turn();
    expect(terms).toHaveLength(1);
    expect(await metric(metrics, 'pipewatch_leader')).toBe(1);
    stop.abort();
    await running;
    expect(terms[0]?.ended).toBe(true);
    expect(await metric(metrics, 'pipewatch_leader_changes_total')).toBe(0);
    expect(lines.join('')).not.toMatch(/role:/);
  });
});

describe('terms of leadership on PostgreSQL', () => {
  const db = usePostgresDatabase();
  const pools: pg.Pool[] = [];
  const stops: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    await migratePostgres(db.pool(), 'test');
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await Promise.all(pools.splice(0).map((p) => p.end()));
    await db.pool().query('TRUNCATE leader_lease, replicas');
  });

  function replica(id: string) {
    const pool = createPool(db.url, { max: 1 });
    pools.push(pool);
    const clock = new ManualClock();
    const lease = new LeaderLease({ pool, clock, id, host: 'host', pid: 1, leaseMs: 15_000 });
    const { logger, lines } = capturedLogger();
    const metrics = new Metrics({ processMetrics: false });
    const { terms, work } = recordedWork();
    const roles = new Terms(lease, { logger, metrics, replicated: true }, work);
    const stop = new AbortController();
    let running: Promise<void> | undefined;
    const start = async () => {
      const first = Promise.race([once(lease, 'role'), once(lease, 'held')]);
      running = roles.run(stop.signal);
      await first;
      await turn();
    };
    const end = async () => {
      stop.abort();
      await running;
      await lease.stop();
    };
    stops.push(end);
    return { lease, clock, lines, metrics, terms, roles, start, end };
  }

  it('runs a term only while leading; a standby takes over, and says from whom', async () => {
    const a = replica('replica-a');
    const b = replica('replica-b');
    await a.start();
    await b.start();
    expect(a.terms).toHaveLength(1);
    expect(b.terms).toHaveLength(0);
    expect(await metric(a.metrics, 'pipewatch_leader')).toBe(1);
    expect(await metric(b.metrics, 'pipewatch_leader')).toBe(0);

    // A stops: its term ends, and it releases the lease for B's next attempt.
    await a.end();
    expect(a.terms[0]?.ended).toBe(true);
    const takeover = once(b.lease, 'role');
    b.clock.advance(b.lease.renewMs);
    await takeover;
    await turn();
    expect(b.terms).toHaveLength(1);
    expect(b.terms[0]?.change.previous).toEqual({ holder: 'replica-a', term: 1 });
    expect(b.terms[0]?.signal.aborted).toBe(false);
    expect(await metric(b.metrics, 'pipewatch_leader')).toBe(1);
    expect(await metric(b.metrics, 'pipewatch_leader_changes_total')).toBe(1);
    expect(b.lines.join('')).toMatch(
      /role: leader \(term 2\), taking over from replica-a \(term 1\)/,
    );
    expect(a.lines.join('')).toMatch(/role: standby \(term 1 ended: this replica is stopping/);
  });

  it('ends the term at once when a fenced write was refused, and runs no other until it leads anew', async () => {
    const a = replica('replica-a');
    await a.start();
    expect(a.terms).toHaveLength(1);
    a.roles.endTerm();
    await turn();
    expect(a.terms[0]?.ended).toBe(true);
    // Its renewal still succeeds (the lease is its own): no new term without a new lead.
    a.clock.advance(a.lease.renewMs);
    await once(a.lease, 'renewed');
    await turn();
    expect(a.terms).toHaveLength(1);
  });

  it('steps down when its lease is taken, ending its term', async () => {
    const a = replica('replica-a');
    await a.start();
    await db
      .pool()
      .query(
        "UPDATE leader_lease SET holder = 'replica-z', term = term + 1, expires_at = now() + interval '1 hour'",
      );
    const down = once(a.lease, 'role');
    a.clock.advance(a.lease.renewMs);
    await down;
    await turn();
    expect(a.terms[0]?.ended).toBe(true);
    // Standing by runs nothing.
    expect(a.terms).toHaveLength(1);
    expect(await metric(a.metrics, 'pipewatch_leader')).toBe(0);
    expect(a.lines.join('')).toMatch(/role: standby \(term 1 ended: another replica holds/);
  });
});
