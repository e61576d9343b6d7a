/**
 * The leader lease on a real PostgreSQL server, each replica with a clock of its own
 * (`ManualClock`) for its schedule and its local deadline. The lease's end is the
 * database's `now()`; a test stands for the database's time passing by expiring the
 * lease's row (`expireInDatabase`), so the statements tested are those that run, reading
 * the server's real clock, and no test waits.
 */
import { once } from 'node:events';
import type pg from 'pg';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPool } from '../../../src/store/postgres/connect.js';
import { fencedBy, fenceValues } from '../../../src/store/postgres/fence.js';
import {
  LeaderLease,
  type LeaseEvents,
  type RoleChange,
} from '../../../src/store/postgres/lease.js';
import { migratePostgres } from '../../../src/store/postgres/migrate.js';
import { listReplicas } from '../../../src/store/postgres/replicas.js';
import { ManualClock } from '../../support/clock.js';
import { usePostgresDatabase } from '../../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js';

const LEASE_MS = 15_000;

interface Replica {
  id: string;
  lease: LeaderLease;
  clock: ManualClock;
  roles: RoleChange[];
  renewals: number;
  failures: number;
}

describe('the leader lease', () => {
  const db = usePostgresDatabase();
  const pools: pg.Pool[] = [];
  const leases: LeaderLease[] = [];
  const proxies: TcpProxy[] = [];

  beforeAll(async () => {
    await migratePostgres(db.pool(), 'test');
  });
  beforeEach(async () => {
    await db.pool().query('TRUNCATE leader_lease, replicas; DROP TABLE IF EXISTS claims');
  });
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) await proxy.close();
    await Promise.all(leases.splice(0).map((l) => l.stop()));
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });

  function replica(id: string, url = db.url): Replica {
    const pool = createPool(url, { max: 1 });
    pools.push(pool);
    const clock = new ManualClock();
    const lease = new LeaderLease({
      pool,
      clock,
      id,
      host: 'test-host',
      pid: 100,
      leaseMs: LEASE_MS,
    });
    leases.push(lease);
    const r: Replica = { id, lease, clock, roles: [], renewals: 0, failures: 0 };
    lease.on('role', (change) => r.roles.push(change));
    lease.on('renewed', () => r.renewals++);
    lease.on('failed', () => r.failures++);
    return r;
  }

  /** A replica behind a proxy the test can cut. */
  async function cutOff(id: string): Promise<{ r: Replica; proxy: TcpProxy }> {
    const url = new URL(db.url);
    const proxy = await startTcpProxy(url.hostname, Number(url.port));
    proxies.push(proxy);
    return { r: replica(id, proxy.via(db.url)), proxy };
  }

  /** The next of these events from a lease, whichever comes first. */
  function next<E extends keyof LeaseEvents>(lease: LeaderLease, ...events: E[]) {
    return Promise.race(
      events.map((event) =>
        once(lease, event).then((args) => ({ event, value: args[0] as LeaseEvents[E][0] })),
      ),
    );
  }

  /** Starts a replica and waits for its first turn: leader, or the lease held. */
  async function started(r: Replica) {
    const first = next(r.lease, 'role', 'held');
    r.lease.start();
    return first;
  }

  /** Moves a replica's clock and waits for what its next turn reports. */
  async function turn<E extends keyof LeaseEvents>(r: Replica, ms: number, ...events: E[]) {
    const reported = next(r.lease, ...events);
    r.clock.advance(ms);
    return reported;
  }

  /** The database's time passes beyond the lease's end. */
  async function expireInDatabase(): Promise<void> {
    await db.pool().query("UPDATE leader_lease SET expires_at = now() - interval '1 millisecond'");
  }

  async function leaseRow() {
    const { rows } = await db
      .pool()
      .query(
        'SELECT holder, term::int AS term, expires_at > now() AS valid, renewed_at > acquired_at AS renewed FROM leader_lease',
      );
    return rows[0];
  }

  it('goes to one of three replicas starting at once, the others seeing it held', async () => {
    const replicas = [replica('a'), replica('b'), replica('c')];
    const firsts = await Promise.all(replicas.map(started));
    const leaders = replicas.filter((r) => r.lease.role === 'leader');
    expect(leaders).toHaveLength(1);
    const leader = leaders[0]!;
    expect(leader.roles).toEqual([{ role: 'leader', term: 1 }]);
    expect(leader.lease.fence()).toEqual({
      name: 'leader',
      holder: leader.id,
      term: 1,
      idleMs: LEASE_MS / 5,
    });
    for (const [i, r] of replicas.entries()) {
      if (r === leader) continue;
      expect(firsts[i]).toEqual({ event: 'held', value: { holder: leader.id, term: 1 } });
      expect(r.lease.fence()).toBeUndefined();
    }
    expect(await leaseRow()).toMatchObject({ holder: leader.id, term: 1, valid: true });
    const listed = await listReplicas(db.pool());
    expect(listed.map((x) => [x.id, x.role]).sort()).toEqual(
      replicas.map((r) => [r.id, r === leader ? 'leader' : 'standby']),
    );
  });

  it('is renewed by its leader every third of its length, moving its local deadline', async () => {
    const a = replica('a');
    await started(a);
    expect(a.lease.renewMs).toBe(5_000);
    const start = a.clock.now().getTime();
    a.clock.advance(4_999);
    const renewed = await turn(a, 1, 'renewed');
    expect(renewed.value).toEqual({
      term: 1,
      deadline: new Date(start + 5_000 + LEASE_MS - a.lease.marginMs),
    });
    expect(await leaseRow()).toMatchObject({ holder: 'a', term: 1, valid: true, renewed: true });
    await turn(a, 5_000, 'renewed');
    await turn(a, 5_000, 'renewed');
    // Well past its first deadline (12 s), renewed all along: still the leader.
    expect(a.roles).toEqual([{ role: 'leader', term: 1 }]);
  });

  it('is given up by a leader whose renewals hang, at its local deadline, before the lease ends', async () => {
    const { r: a, proxy } = await cutOff('a');
    await started(a);
    const start = a.clock.now().getTime();
    proxy.hang();
    const sent = proxy.swallowed();
    a.clock.advance(5_000);
    await sent; // its renewal is sent, and never answered
    a.clock.advance(6_999);
    expect(a.lease.role).toBe('leader');
    const steppedDown = await turn(a, 1, 'role');
    expect(steppedDown.value).toEqual({ role: 'standby', term: 1, reason: 'late' });
    // 12 s after its last renewal that got through was sent: 3 s before the lease's end.
    expect(a.clock.now().getTime() - start).toBe(LEASE_MS - a.lease.marginMs);
    expect(a.lease.fence()).toBeUndefined();
    expect(await leaseRow()).toMatchObject({ holder: 'a', term: 1, valid: true });
  });

  it('is given up by a leader whose renewals fail, at the same deadline, after retrying', async () => {
    const { r: a, proxy } = await cutOff('a');
    await started(a);
    proxy.refuse();
    await turn(a, 5_000, 'failed');
    await turn(a, a.lease.retryMs, 'failed');
    expect(a.lease.role).toBe('leader');
    const steppedDown = await turn(a, 12_000 - 5_000 - a.lease.retryMs, 'role');
    expect(steppedDown.value).toEqual({ role: 'standby', term: 1, reason: 'late' });
    expect(a.renewals).toBe(0);
  });

  it('is taken by a standby only once it has expired, at the next term', async () => {
    const { r: a, proxy } = await cutOff('a');
    await started(a);
    const b = replica('b');
    expect(await started(b)).toEqual({ event: 'held', value: { holder: 'a', term: 1 } });
    proxy.hang(); // a is gone: no renewal reaches the database
    expect(await turn(b, 5_000, 'held', 'role')).toEqual({
      event: 'held',
      value: { holder: 'a', term: 1 },
    });
    expect(b.lease.role).toBe('standby');
    await expireInDatabase();
    const tookOver = await turn(b, 5_000, 'role');
    expect(tookOver.value).toEqual({
      role: 'leader',
      term: 2,
      previous: { holder: 'a', term: 1 },
    });
    expect(await leaseRow()).toMatchObject({ holder: 'b', term: 2, valid: true });
  });

  it('is lost by a paused leader that resumes after a takeover: it finds out and stands by', async () => {
    const a = replica('a');
    await started(a);
    const aFence = a.lease.fence()!;
    const b = replica('b');
    await started(b);
    // a is paused: its clock stands still and it sends nothing; meanwhile the lease ends.
    await expireInDatabase();
    await turn(b, 5_000, 'role');
    const bFence = b.lease.fence()!;
    expect(bFence.term).toBe(2);
    // a resumes, its own clock short of its deadline, and tries to renew.
    const lost = await turn(a, 5_000, 'role');
    expect(lost.value).toEqual({ role: 'standby', term: 1, reason: 'lost' });
    expect(a.renewals).toBe(0);
    expect(await turn(a, 0, 'held')).toEqual({ event: 'held', value: { holder: 'b', term: 2 } });

    // What a decided under its term changes nothing; b's term does.
    const pool = db.pool();
    await pool.query('CREATE TABLE claims (id int PRIMARY KEY, claimed_by text)');
    await pool.query('INSERT INTO claims VALUES (1, NULL), (2, NULL)');
    const claim = async (id: number, fence: typeof aFence) =>
      (
        await pool.query(`UPDATE claims SET claimed_by = $4 WHERE id = $5 AND ${fencedBy(1)}`, [
          ...fenceValues(fence),
          fence.holder,
          id,
        ])
      ).rowCount;
    expect(await claim(1, aFence)).toBe(0);
    expect(await claim(2, bFence)).toBe(1);
    const { rows } = await pool.query('SELECT id, claimed_by FROM claims ORDER BY id');
    expect(rows).toEqual([
      { id: 1, claimed_by: null },
      { id: 2, claimed_by: 'b' },
    ]);
  });

  it('is given up without a word to the database by a leader that resumes past its deadline', async () => {
    const a = replica('a');
    await started(a);
    const b = replica('b');
    await started(b);
    await expireInDatabase();
    await turn(b, 5_000, 'role');
    // a was paused 20 s by its own clock: past its deadline, it stops before renewing.
    const late = await turn(a, 20_000, 'role');
    expect(late.value).toEqual({ role: 'standby', term: 1, reason: 'late' });
    expect(a.renewals + a.failures).toBe(0);
    expect(await next(a.lease, 'held')).toEqual({
      event: 'held',
      value: { holder: 'b', term: 2 },
    });
  });

  it('survives its connection dropped by the server or the network, and the server away a while', async () => {
    const { r: a, proxy } = await cutOff('a');
    await started(a);
    const { rows } = await db
      .pool()
      .query(
        "SELECT pg_terminate_backend(pid) AS gone FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'pipewatch'",
      );
    expect(rows).toEqual([{ gone: true }]);
    const renewedAfter = async (ms: number) => {
      // The pool may try the dead connection once before it hears it is closed.
      for (let attempt = 0, wait = ms; attempt < 3; attempt++, wait = a.lease.retryMs) {
        if ((await turn(a, wait, 'renewed', 'failed')).event === 'renewed') return;
      }
      throw new Error('not renewed after 3 attempts');
    };
    await renewedAfter(5_000);
    proxy.drop();
    await renewedAfter(5_000);
    // The server away for a while (refusing every connection), back before the deadline.
    proxy.refuse();
    await turn(a, 5_000, 'failed');
    await turn(a, a.lease.retryMs, 'failed');
    proxy.heal();
    expect((await turn(a, a.lease.retryMs, 'renewed')).value.term).toBe(1);
    expect(a.roles).toEqual([{ role: 'leader', term: 1 }]);
    expect(await leaseRow()).toMatchObject({ holder: 'a', term: 1, valid: true });
  });

  it('goes on when its heartbeat gets no answer: the heartbeat fails at its bound, the lease is renewed', async () => {
    // A short lease: its statements wait a third of it for an answer, in real time.
    const pool = createPool(db.url, { max: 1 });
    pools.push(pool);
    const clock = new ManualClock();
    const lease = new LeaderLease({ pool, clock, id: 'a', host: 'h', pid: 1, leaseMs: 600 });
    leases.push(lease);
    const a: Replica = { id: 'a', lease, clock, roles: [], renewals: 0, failures: 0 };
    lease.on('role', (change) => a.roles.push(change));
    lease.on('renewed', () => a.renewals++);
    await started(a);
    // The list of replicas is locked: the heartbeat's write waits, as one whose answer the
    // network lost would; the lease's own row is free.
    const locker = await db.pool().connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE replicas IN ACCESS EXCLUSIVE MODE');
      const failed = await turn(a, lease.renewMs, 'failed');
      expect(failed.value.message).toMatch(/timeout/i);
      // The renewal itself got through, before the heartbeat.
      expect(a.renewals).toBe(1);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    // Not stuck behind it: the next turns renew, and it leads on.
    await turn(a, lease.retryMs, 'renewed');
    expect(a.roles).toEqual([{ role: 'leader', term: 1 }]);
  });

  it('is released by a leader that stops, for a standby to take at its next turn; the list follows', async () => {
    const a = replica('a');
    await started(a);
    const b = replica('b');
    await started(b);
    expect((await listReplicas(db.pool())).map((x) => x.id).sort()).toEqual(['a', 'b']);
    await a.lease.stop();
    expect(a.roles.at(-1)).toEqual({ role: 'standby', term: 1, reason: 'stopped' });
    const tookOver = await turn(b, 5_000, 'role');
    expect(tookOver.value).toEqual({ role: 'leader', term: 2, previous: { holder: 'a', term: 1 } });
    expect((await listReplicas(db.pool())).map((x) => [x.id, x.role])).toEqual([['b', 'leader']]);
    // One not heard of for more than 5 minutes is no longer listed.
    await db.pool().query("UPDATE replicas SET last_seen_at = now() - interval '301 seconds'");
    expect(await listReplicas(db.pool())).toEqual([]);
  });

  it('holds off a takeover while a write fenced by the current term is under way', async () => {
    const a = replica('a');
    await started(a);
    const fence = a.lease.fence()!;
    const pool = db.pool();
    await pool.query('CREATE TABLE claims (id int PRIMARY KEY, claimed_by text)');
    await pool.query('INSERT INTO claims VALUES (1, NULL)');
    const writer = await pool.connect();
    const other = await pool.connect();
    try {
      await writer.query('BEGIN');
      const claimed = await writer.query(
        `UPDATE claims SET claimed_by = 'a' WHERE id = 1 AND ${fencedBy(1)}`,
        fenceValues(fence),
      );
      expect(claimed.rowCount).toBe(1);
      // A takeover changes the lease's row: it must wait for the claim's commit.
      await other.query("SET lock_timeout = '200ms'");
      await expect(
        other.query("UPDATE leader_lease SET holder = 'b', term = term + 1"),
      ).rejects.toThrow(/lock timeout/);
      await writer.query('COMMIT');
      await other.query("UPDATE leader_lease SET holder = 'b', term = term + 1");
    } finally {
      writer.release();
      other.release();
    }
  });
});
