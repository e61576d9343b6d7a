/**
 * The outbox behaves the same on SQLite and on PostgreSQL: which deliveries are due and
 * ready (by target, in order, behind a retry or a delivery in flight), claims and their
 * release, what becomes of each delivery, what `status` and the backlog say, the notice
 * version a delivery names given back as its payload's notice. On PostgreSQL only: the
 * writes that send are fenced by the leader's lease, a claim names its holder and term,
 * and two claimers never both take a row.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DeliveryErrorCode } from '../../../src/channels/types.js';
import { type Target, targetKey } from '../../../src/domain/targets.js';
import type { UtcIso } from '../../../src/lib/time.js';
import type { Fence } from '../../../src/store/postgres/fence.js';
import { LeaderLease } from '../../../src/store/postgres/lease.js';
import { PgNoticeStore } from '../../../src/store/postgres/notices.js';
import { PgOutboxStore } from '../../../src/store/postgres/outbox.js';
import { on, type Queryable } from '../../../src/store/postgres/queryable.js';
import { StoredDataError } from '../../../src/store/stored-json.js';
import { makeNotice } from '../../fakes/notice.js';
import { type Opened, STORES, sql } from '../../support/both-stores.js';
import { ManualClock } from '../../support/clock.js';

const OPS: Target = { kind: 'slack', channel: '#ops' };
const GAS: Target = { kind: 'slack', channel: '#gas' };
const MAIL: Target = { kind: 'email', to: ['ops@example.test'] };

const FENCE: Fence = { name: 'leader', holder: 'replica-a', term: 1 };

/** The lease `FENCE` holds, for an hour of the database's clock. */
async function holdLease(o: Opened & { kind: 'postgres' }, fence = FENCE): Promise<void> {
  await o.pool.query(
    `INSERT INTO leader_lease (name, holder, term, acquired_at, renewed_at, expires_at)
     VALUES ($1, $2, $3, now(), now(), now() + interval '1 hour')
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, term = excluded.term,
       expires_at = excluded.expires_at`,
    [fence.name, fence.holder, fence.term],
  );
}

/** The outbox and notices of `o`; on PostgreSQL, led by `FENCE`. */
async function stores(o: Opened) {
  if (o.kind === 'sqlite') return { box: o.store.outbox, notices: o.store.notices };
  await holdLease(o);
  const db = on(o.pool);
  const notices = new PgNoticeStore(db);
  return { box: new PgOutboxStore(db, notices, () => FENCE), notices };
}

/** What `fn` answers, as a promise: SQLite's throw becomes a rejection. */
const attempt = async <T>(fn: () => T | Promise<T>): Promise<T> => fn();

type Box = Awaited<ReturnType<typeof stores>>['box'];

/** Queues `subject` for `target` at `at`; returns its row id. */
async function enqueue(
  o: Opened,
  box: Box,
  subject: string,
  target: Target,
  at: UtcIso,
): Promise<number> {
  expect(await box.enqueue(subject, 'rule', target, '{"kind":"notice"}', at)).toBe(true);
  const [row] = await sql<{ id: number }>(
    o,
    'SELECT id FROM outbox WHERE subject = ? AND target = ?',
    [subject, targetKey(target)],
  );
  return row!.id;
}

/** A delivery's claim, as stored. */
async function claimOf(o: Opened, id: number) {
  const [row] = await sql<{ at: string | null; by: string | null; term: number | null }>(
    o,
    'SELECT claimed_at AS at, claimed_by AS by, claimed_term AS term FROM outbox WHERE id = ?',
    [id],
  );
  return row;
}

describe.each(STORES)('%s (postgres and sqlite alike)', (kind, open) => {
  /** What a claim made at `at` records: who and under which term on PostgreSQL alone. */
  const claimed = (at: string | null) =>
    at === null
      ? { at: null, by: null, term: null }
      : {
          at,
          by: kind === 'postgres' ? FENCE.holder : null,
          term: kind === 'postgres' ? FENCE.term : null,
        };

  it('queues a delivery once, and knows it was decided', async () => {
    const o = await open();
    const { box } = await stores(o);
    const payload = { kind: 'notice', n: 1 } as never;
    expect(await box.enqueue('notice:1:v1', 'rule', OPS, payload, '2026-11-20T15:00:00Z')).toBe(
      true,
    );
    expect(await box.enqueue('notice:1:v1', 'rule', OPS, payload, '2026-11-20T16:00:00Z')).toBe(
      false,
    );
    expect(await box.has('notice:1:v1', 'rule', OPS)).toBe(true);
    expect(await box.has('notice:1:v1', 'rule', GAS)).toBe(false);
    expect(await box.has('notice:1:v1', 'other', OPS)).toBe(false);
    const [row] = await box.forSubject('notice:1:');
    expect(row).toEqual({
      id: row!.id,
      key: 'rule|notice:1:v1|slack:#ops',
      subject: 'notice:1:v1',
      rule: 'rule',
      target: OPS,
      payload: { kind: 'notice', n: 1 },
      status: 'pending',
      attempts: 0,
      next_attempt_at: '2026-11-20T15:00:00Z',
      last_error: null,
      last_error_code: null,
      created_at: '2026-11-20T15:00:00Z',
      sent_at: null,
      claimed_at: null,
      detail: null,
    });
    expect(await box.pending()).toBe(1);
    expect(await box.counts()).toEqual({ pending: 1, sent: 0, dead: 0 });
  });

  it('gives due deliveries oldest first, leaving out those in flight and those not yet due', async () => {
    const o = await open();
    const { box } = await stores(o);
    const later = await enqueue(o, box, 'notice:3:v1', GAS, '2026-11-20T15:10:00Z');
    const first = await enqueue(o, box, 'notice:1:v1', OPS, '2026-11-20T15:00:00Z');
    const inFlight = await enqueue(o, box, 'notice:2:v1', GAS, '2026-11-20T15:05:00Z');
    await box.claim([inFlight], '2026-11-20T15:06:00Z');
    expect((await box.due('2026-11-20T15:10:00Z')).map((r) => r.id)).toEqual([first, later]);
    expect((await box.due('2026-11-20T15:10:00Z', 1)).map((r) => r.id)).toEqual([first]);
    expect((await box.due('2026-11-20T15:09:59Z')).map((r) => r.id)).toEqual([first]);
    await box.markSent([first], '2026-11-20T15:11:00Z', 'ok');
    await box.markDead([later], 'gone');
    expect(await box.due('2026-11-20T15:10:00Z')).toEqual([]);
  });

  it('claims only pending deliveries, and a claim ends with the delivery', async () => {
    const o = await open();
    const { box } = await stores(o);
    const sent = await enqueue(o, box, 'notice:1:v1', OPS, '2026-11-20T15:00:00Z');
    const pending = await enqueue(o, box, 'notice:2:v1', OPS, '2026-11-20T15:00:00Z');
    const retried = await enqueue(o, box, 'notice:3:v1', OPS, '2026-11-20T15:00:00Z');
    const dead = await enqueue(o, box, 'notice:4:v1', OPS, '2026-11-20T15:00:00Z');
    await box.markSent([sent], '2026-11-20T15:01:00Z', 'ok');
    await box.claim([sent, pending, retried, dead, 1e20, 1.5], '2026-11-20T15:02:00Z');
    await box.claim([], '2026-11-20T15:02:00Z');
    expect(await claimOf(o, sent)).toEqual(claimed(null));
    expect(await claimOf(o, pending)).toEqual(claimed('2026-11-20T15:02:00Z'));
    await box.retryLater([retried], 'slack: HTTP 503', '2026-11-20T15:10:00Z', true, 'UNAVAILABLE');
    await box.markDead([dead], 'slack: channel_not_found', 'NOT_FOUND');
    await box.markSent([pending], '2026-11-20T15:03:00Z', 'ts=1');
    for (const id of [pending, retried, dead]) expect(await claimOf(o, id)).toEqual(claimed(null));
    const rows = await box.forSubject('notice:');
    expect(
      rows.map((r) => [
        r.status,
        r.attempts,
        r.last_error,
        r.last_error_code,
        r.sent_at,
        r.detail,
        r.next_attempt_at,
      ]),
    ).toEqual([
      ['sent', 1, null, null, '2026-11-20T15:01:00Z', 'ok', '2026-11-20T15:00:00Z'],
      ['sent', 1, null, null, '2026-11-20T15:03:00Z', 'ts=1', '2026-11-20T15:00:00Z'],
      ['pending', 1, 'slack: HTTP 503', 'UNAVAILABLE', null, null, '2026-11-20T15:10:00Z'],
      ['dead', 1, 'slack: channel_not_found', 'NOT_FOUND', null, null, '2026-11-20T15:00:00Z'],
    ]);
    // Not attempted (another delivery to the target failed first): no attempt counted.
    await box.retryLater([retried], 'behind another', '2026-11-20T15:20:00Z', false);
    expect((await box.forSubject('notice:3:'))[0]).toMatchObject({
      attempts: 1,
      last_error: 'behind another',
      last_error_code: null,
    });
    expect(await box.counts()).toEqual({ pending: 1, sent: 2, dead: 1 });
    expect(await box.pending()).toBe(1);
  });

  it('releases claims left in flight, due at once, but those of the targets kept', async () => {
    const o = await open();
    const { box } = await stores(o);
    const ops = await enqueue(o, box, 'notice:1:v1', OPS, '2026-11-20T15:00:00Z');
    const gas = await enqueue(o, box, 'notice:2:v1', GAS, '2026-11-20T15:00:00Z');
    const mail = await enqueue(o, box, 'notice:3:v1', MAIL, '2026-11-20T15:00:00Z');
    const free = await enqueue(o, box, 'notice:4:v1', MAIL, '2026-11-20T15:00:00Z');
    await box.retryLater([gas], 'busy', '2026-11-20T17:00:00Z');
    await box.claim([ops, gas, mail], '2026-11-20T15:05:00Z');
    // A claim that names a holder gone (on SQLite none ever does) is cleared all the same.
    await sql(o, "UPDATE outbox SET claimed_by = 'gone', claimed_term = 0 WHERE id = ?", [ops]);
    expect(await box.releaseClaims('2026-11-20T16:00:00Z', [targetKey(MAIL)])).toBe(2);
    expect(await claimOf(o, ops)).toEqual(claimed(null));
    expect(await claimOf(o, gas)).toEqual(claimed(null));
    expect(await claimOf(o, mail)).toEqual(claimed('2026-11-20T15:05:00Z'));
    expect(await claimOf(o, free)).toEqual(claimed(null));
    const due = await box.forSubject('notice:');
    // Due again at once: never later than before.
    expect(due.map((r) => r.next_attempt_at)).toEqual([
      '2026-11-20T15:00:00Z',
      '2026-11-20T16:00:00Z',
      '2026-11-20T15:00:00Z',
      '2026-11-20T15:00:00Z',
    ]);
    expect(await box.releaseClaims('2026-11-20T16:00:00Z')).toBe(1);
    expect(await box.releaseClaims('2026-11-20T16:00:00Z')).toBe(0);
  });

  it('gives the deliveries ready by target, oldest target first, a target in flight or held back giving none past it', async () => {
    const o = await open();
    const { box } = await stores(o);
    const at = (m: number) => `2026-11-20T15:${String(m).padStart(2, '0')}:00Z`;
    const gas1 = await enqueue(o, box, 'notice:1:v1', GAS, at(1));
    const ops1 = await enqueue(o, box, 'notice:2:v1', OPS, at(2));
    const gas2 = await enqueue(o, box, 'notice:3:v1', GAS, at(3));
    const ops2 = await enqueue(o, box, 'notice:4:v1', OPS, at(4));
    const gas3 = await enqueue(o, box, 'notice:5:v1', GAS, at(5));
    const mail1 = await enqueue(o, box, 'notice:6:v1', MAIL, at(6));
    const mail2 = await enqueue(o, box, 'notice:7:v1', MAIL, at(7));
    let ready = await box.ready(at(10));
    expect(ready.rows.map((r) => r.id)).toEqual([gas1, ops1, gas2, ops2, gas3, mail1, mail2]);
    expect(ready).toMatchObject({ unreadable: [], more: false, behind: [] });
    // At most 2 targets, 2 deliveries each: the oldest targets' oldest deliveries.
    ready = await box.ready(at(10), 2, 2);
    expect(ready.rows.map((r) => r.id)).toEqual([gas1, ops1, gas2, ops2]);
    expect(ready.more).toBe(true);
    // Gas's second waits for a retry: its third waits behind it. Mail is in flight.
    await box.retryLater([gas2], 'slack: HTTP 503', at(20));
    await box.claim([mail1], at(10));
    ready = await box.ready(at(10));
    expect(ready.rows.map((r) => r.id)).toEqual([gas1, ops1, ops2]);
    expect(ready.behind).toEqual([targetKey(MAIL)]);
    expect(await box.nextReadyAt()).toBe(at(1));
    await box.markSent([gas1, ops1, ops2], at(11), 'ok');
    // Gas's first waiting delivery is held until 15:20, mail's is in flight.
    expect((await box.ready(at(11))).rows).toEqual([]);
    expect(await box.nextReadyAt()).toBe(at(20));
    expect((await box.ready(at(20))).rows.map((r) => r.id)).toEqual([gas2, gas3]);
    await box.markSent([gas2, gas3], at(21), 'ok');
    expect(await box.nextReadyAt()).toBeNull();
    await box.markSent([mail1], at(21), 'ok');
    expect(await box.nextReadyAt()).toBe(at(7));
  });

  it('sets apart a delivery that cannot be read, and refuses to show it', async () => {
    const o = await open();
    const { box } = await stores(o);
    const good = await enqueue(o, box, 'notice:1:v1', OPS, '2026-11-20T15:00:00Z');
    const bad = await enqueue(o, box, 'notice:2:v1', GAS, '2026-11-20T15:00:00Z');
    await sql(o, "UPDATE outbox SET payload = '{not json' WHERE id = ?", [bad]);
    const ready = await box.ready('2026-11-20T15:00:00Z');
    expect(ready.rows.map((r) => r.id)).toEqual([good]);
    expect(ready.unreadable).toEqual([
      {
        id: bad,
        rule: 'rule',
        subject: 'notice:2:v1',
        target: GAS,
        target_key: targetKey(GAS),
        created_at: '2026-11-20T15:00:00Z',
        reason: expect.stringMatching(/^its alert is not JSON \(/),
      },
    ]);
    await expect(attempt(() => box.due('2026-11-20T15:00:00Z'))).rejects.toThrow(
      new RegExp(`^the database holds outbox row ${bad} \\(notice:2:v1\\), which cannot be read`),
    );
  });

  it('gives a delivery that names a notice version that version as its notice', async () => {
    const o = await open();
    const { box, notices } = await stores(o);
    const v1 = makeNotice();
    const v2 = { ...v1, status: 'Terminate', notice: 'Lifted.' };
    await notices.upsert(v1, '2026-11-20T15:00:00Z', false);
    await notices.upsert(v2, '2026-11-20T15:10:00Z', false);
    const payload = '{"kind":"notice","rule":"r"}';
    for (const [subject, target, version] of [
      ['notice:101:v1', OPS, 1],
      ['notice:101:v1', GAS, 1],
      ['notice:101:v2', OPS, 2],
    ] as const)
      await box.enqueue(subject, 'rule', target, payload, '2026-11-20T15:20:00Z', {
        id: 101,
        version,
      });
    await box.enqueue('notice:999:v1', 'rule', MAIL, payload, '2026-11-20T15:20:00Z', {
      id: 999,
      version: 1,
    });
    const rows = await box.forSubject('notice:');
    expect(rows.map((r) => r.payload)).toEqual([
      { kind: 'notice', rule: 'r', notice: v1 },
      { kind: 'notice', rule: 'r', notice: v1 },
      { kind: 'notice', rule: 'r', notice: v2 },
      { kind: 'notice', rule: 'r', notice: undefined },
    ]);
    // A history that cannot be read makes its deliveries unreadable, not the others.
    await sql(o, "UPDATE notice_history SET previous = '[1]'");
    const ready = await box.ready('2026-11-20T15:20:00Z');
    expect(ready.rows.map((r) => r.subject)).toEqual(['notice:101:v2', 'notice:999:v1']);
    const unreadable = [
      'notice:101:v1',
      expect.stringMatching(/^its notice: .*version 1 of notice 101 in its history/),
    ];
    expect(ready.unreadable.map((r) => [r.subject, r.reason])).toEqual([unreadable, unreadable]);
    await expect(attempt(() => box.forSubject('notice:101:v1'))).rejects.toThrow(StoredDataError);
  });

  it('finds deliveries by subject, taking % and _ in it literally, to the end of the prefix', async () => {
    const o = await open();
    const { box } = await stores(o);
    for (const subject of [
      'capacity:gulf_south:2026-11-21',
      'capacity:gulfXsouth:2026-11-21',
      'capacity:100%:2026-11-21',
      'capacity:1000:2026-11-21',
      'capacity:é:1',
      'capacity:éa:1',
      'capacity:ê:1',
      'capacity;',
    ])
      await enqueue(o, box, subject, OPS, '2026-11-20T15:00:00Z');
    const subjects = async (prefix: string) => (await box.forSubject(prefix)).map((r) => r.subject);
    expect(await subjects('capacity:gulf_south:')).toEqual(['capacity:gulf_south:2026-11-21']);
    expect(await subjects('capacity:100%:')).toEqual(['capacity:100%:2026-11-21']);
    expect(await subjects('capacity:é')).toEqual(['capacity:é:1', 'capacity:éa:1']);
    expect(await subjects('capacity:')).toHaveLength(7);
    expect(await subjects('')).toHaveLength(8);
    expect((await box.forSubject('capacity:'))[0]?.payload).toEqual({ kind: 'notice' });
  });

  it('summarises the oldest pending delivery, and dead ones by kind, the most frequent first', async () => {
    const o = await open();
    const { box } = await stores(o);
    const sent = await enqueue(o, box, 'notice:1:v1', OPS, '2026-11-20T14:00:00Z');
    await box.markSent([sent], '2026-11-20T14:01:00Z', 'ok');
    await enqueue(o, box, 'notice:2:v1', OPS, '2026-11-20T15:00:00Z');
    await enqueue(o, box, 'notice:3:v1', OPS, '2026-11-20T16:00:00Z');
    const dead = [
      await enqueue(o, box, 'notice:4:v1', GAS, '2026-11-20T13:00:00Z'),
      await enqueue(o, box, 'notice:5:v1', GAS, '2026-11-20T13:10:00Z'),
      await enqueue(o, box, 'notice:6:v1', GAS, '2026-11-20T13:20:00Z'),
      await enqueue(o, box, 'notice:7:v1', GAS, '2026-11-20T13:30:00Z'),
      await enqueue(o, box, 'notice:8:v1', GAS, '2026-11-20T12:00:00Z'),
    ];
    await box.markDead([dead[0]!], 'slack: channel_not_found', 'NOT_FOUND');
    await box.markDead([dead[1]!, dead[2]!], 'slack: not_in_channel', 'FORBIDDEN');
    await box.markDead([dead[3]!], 'slack: missing_scope', 'FORBIDDEN');
    await box.markDead([dead[4]!], 'failed before codes were kept');
    expect(await box.summary()).toEqual({
      pending: 2,
      sent: 1,
      dead: 5,
      oldest_pending_at: '2026-11-20T15:00:00Z',
      dead_reasons: [
        {
          code: 'FORBIDDEN',
          reason: 'slack: missing_scope',
          reasons: 2,
          count: 3,
          last_at: '2026-11-20T13:30:00Z',
        },
        {
          code: null,
          reason: 'failed before codes were kept',
          reasons: 1,
          count: 1,
          last_at: '2026-11-20T12:00:00Z',
        },
        {
          code: 'NOT_FOUND',
          reason: 'slack: channel_not_found',
          reasons: 1,
          count: 1,
          last_at: '2026-11-20T13:00:00Z',
        },
      ],
    });
  });

  it('names every kind of dead delivery, however many kinds there are', async () => {
    const o = await open();
    const { box } = await stores(o);
    const codes = Object.values(DeliveryErrorCode);
    for (const [i, code] of codes.entries()) {
      const id = await enqueue(o, box, `notice:${i + 10}:v1`, GAS, '2026-11-20T13:00:00Z');
      await box.markDead([id], `failed with ${code}`, code);
    }
    const reasons = (await box.summary()).dead_reasons;
    expect(reasons.map((r) => r.code).sort()).toEqual([...codes].sort());
    expect(reasons.reduce((n, r) => n + r.count, 0)).toBe((await box.summary()).dead);
  });

  it('gives each waiting target its count, those in flight and the error of its first that failed', async () => {
    const o = await open();
    const { box } = await stores(o);
    const first = await enqueue(o, box, 'notice:1:v1', OPS, '2026-11-20T15:00:00Z');
    const second = await enqueue(o, box, 'notice:2:v1', OPS, '2026-11-20T15:01:00Z');
    const gas = await enqueue(o, box, 'notice:3:v1', GAS, '2026-11-20T15:02:00Z');
    await box.retryLater([second], 'slack: HTTP 503', '2026-11-20T15:10:00Z');
    await box.retryLater([first], 'slack: ratelimited', '2026-11-20T15:10:00Z');
    await box.claim([gas], '2026-11-20T15:03:00Z');
    expect(await box.backlog()).toEqual([
      {
        target: OPS,
        pending: 2,
        in_flight: 0,
        oldest_at: '2026-11-20T15:00:00Z',
        last_error: 'slack: ratelimited',
      },
      {
        target: GAS,
        pending: 1,
        in_flight: 1,
        oldest_at: '2026-11-20T15:02:00Z',
        last_error: null,
      },
    ]);
    await sql(o, "UPDATE outbox SET target_json = '{', target = 'nowhere' WHERE id = ?", [gas]);
    await expect(attempt(() => box.backlog())).rejects.toThrow(
      /^the database holds a delivery to nowhere whose its target is not JSON/,
    );
  });
});

/** The PostgreSQL database of one test, and its outbox led by `fence()`. */
async function postgres(fence: () => Fence | undefined = () => FENCE) {
  const o = await STORES[1]![1]();
  if (o.kind !== 'postgres') throw new Error('expected the postgres store');
  const db = on(o.pool);
  return { o, box: new PgOutboxStore(db, new PgNoticeStore(db), fence) };
}

/** A `not_leader` failure that names what was not written. */
const notLeader = (what: RegExp) =>
  expect.objectContaining({ code: 'not_leader', message: expect.stringMatching(what) });

describe('postgres (fenced by the leader lease)', () => {
  it('refuses every write that sends while this replica does not lead, changing nothing', async () => {
    const { o, box } = await postgres(() => undefined);
    const id = await enqueue(o, box, 'notice:1:v1', OPS, '2026-11-20T15:00:00Z');
    const before = await sql(o, 'SELECT * FROM outbox');
    const refused = /was not written: this replica does not hold the leader lease/;
    await expect(box.claim([id], '2026-11-20T15:01:00Z')).rejects.toEqual(
      notLeader(/^the claim of delivery 1 was not written/),
    );
    await expect(box.markSent([id], '2026-11-20T15:01:00Z', 'ok')).rejects.toEqual(
      notLeader(refused),
    );
    await expect(box.retryLater([id], 'e', '2026-11-20T15:01:00Z')).rejects.toEqual(
      notLeader(refused),
    );
    await expect(box.markDead([id], 'e')).rejects.toEqual(notLeader(refused));
    await expect(box.releaseClaims('2026-11-20T15:01:00Z')).rejects.toEqual(notLeader(refused));
    expect(await sql(o, 'SELECT * FROM outbox')).toEqual(before);
    // Reads and what a decision queues are not the leader's alone.
    expect(await box.pending()).toBe(1);
  });

  it("changes nothing under a term another replica's takeover ended: the claim and the confirmation fail", async () => {
    const { o } = await postgres();
    const leases: LeaderLease[] = [];
    const lead = async (id: string) => {
      const lease = new LeaderLease({
        pool: o.pool,
        clock: new ManualClock(),
        id,
        host: 'test-host',
        pid: 1,
        leaseMs: 15_000,
      });
      leases.push(lease);
      const role = once(lease, 'role');
      lease.start();
      await role;
      return lease;
    };
    try {
      const a = await lead('a');
      const db = on(o.pool);
      const aBox = new PgOutboxStore(db, new PgNoticeStore(db), () => a.fence());
      const claimedByA = await enqueue(o, aBox, 'notice:1:v1', OPS, '2026-11-20T15:00:00Z');
      const waiting = await enqueue(o, aBox, 'notice:2:v1', GAS, '2026-11-20T15:00:00Z');
      await aBox.claim([claimedByA], '2026-11-20T15:01:00Z');
      expect(await claimOf(o, claimedByA)).toEqual({
        at: '2026-11-20T15:01:00Z',
        by: 'a',
        term: 1,
      });
      const stale = a.fence();
      // a is paused; its lease ends on the database's clock, and b takes it over.
      await o.pool.query("UPDATE leader_lease SET expires_at = now() - interval '1 millisecond'");
      const b = await lead('b');
      expect(b.fence()).toEqual({ name: 'leader', holder: 'b', term: 2, idleMs: 3_000 });
      const before = await sql(o, 'SELECT * FROM outbox ORDER BY id');
      const tookOver =
        /this replica \(a\) no longer holds the lease "leader" at term 1; another replica took it over/;
      await expect(aBox.claim([waiting], '2026-11-20T15:02:00Z')).rejects.toEqual(
        notLeader(tookOver),
      );
      await expect(aBox.markSent([claimedByA], '2026-11-20T15:02:00Z', 'ok')).rejects.toEqual(
        notLeader(/^delivery 1 marked sent was not written: /),
      );
      await expect(aBox.releaseClaims('2026-11-20T15:02:00Z')).rejects.toEqual(notLeader(tookOver));
      expect(await sql(o, 'SELECT * FROM outbox ORDER BY id')).toEqual(before);
      expect(a.fence()).toEqual(stale);
      // b, the leader now, releases a's claim: a is gone, and its send is made again.
      const bBox = new PgOutboxStore(db, new PgNoticeStore(db), () => b.fence());
      expect(await bBox.releaseClaims('2026-11-20T15:03:00Z')).toBe(1);
      await bBox.claim([claimedByA, waiting], '2026-11-20T15:03:00Z');
      expect(await claimOf(o, waiting)).toEqual({ at: '2026-11-20T15:03:00Z', by: 'b', term: 2 });
      await bBox.markSent([claimedByA], '2026-11-20T15:04:00Z', 'ok');
      expect((await bBox.counts()).sent).toBe(1);
    } finally {
      await Promise.all(leases.map((l) => l.stop()));
    }
  });

  it("releases every claim of an earlier term and its own, but not the current term's it keeps", async () => {
    const current: Fence = { name: 'leader', holder: 'b', term: 3 };
    const { o, box } = await postgres(() => current);
    await holdLease(o, current);
    const ids: number[] = [];
    for (const [n, target] of [OPS, GAS, MAIL, OPS, GAS].entries())
      ids.push(await enqueue(o, box, `notice:${n}:v1`, target, '2026-11-20T15:00:00Z'));
    const claim = (id: number, by: string | null, term: number | null) =>
      sql(
        o,
        "UPDATE outbox SET claimed_at = '2026-11-20T15:01:00Z', claimed_by = ?, claimed_term = ? WHERE id = ?",
        [by, term, id],
      );
    await claim(ids[0]!, 'a', 2); // the former leader's
    await claim(ids[1]!, 'b', 1); // this replica's, from a term it led before
    await claim(ids[2]!, null, null); // copied from SQLite
    await claim(ids[3]!, 'b', 3); // this replica's, in flight to a target kept
    await claim(ids[4]!, 'c', 3); // another's under this term: cannot be, and is left
    expect(await box.releaseClaims('2026-11-20T15:02:00Z', [targetKey(OPS)])).toBe(3);
    const held = await sql<{ id: number; claimed_by: string | null }>(
      o,
      'SELECT id, claimed_by FROM outbox WHERE claimed_at IS NOT NULL ORDER BY id',
    );
    expect(held).toEqual([
      { id: ids[3], claimed_by: 'b' },
      { id: ids[4], claimed_by: 'c' },
    ]);
  });

  it('lets two claimers at once take each row once: one skips what the other holds', async () => {
    const { o, box } = await postgres();
    await holdLease(o);
    const ids: number[] = [];
    for (const n of [1, 2, 3])
      ids.push(await enqueue(o, box, `notice:${n}:v1`, OPS, '2026-11-20T15:00:00Z'));
    const first = await o.pool.connect();
    const second = await o.pool.connect();
    try {
      // Were a locked row waited for, the second claim would fail here, not hang.
      await second.query("SET lock_timeout = '5s'");
      const through = (client: Queryable) =>
        new PgOutboxStore(on(client), new PgNoticeStore(on(client)), () => FENCE);
      await first.query('BEGIN');
      await through(first).claim([ids[0]!, ids[1]!], '2026-11-20T15:01:00Z');
      await through(second).claim(ids, '2026-11-20T15:02:00Z');
      await first.query('COMMIT');
      expect(
        (await sql<{ claimed_at: string }>(o, 'SELECT claimed_at FROM outbox ORDER BY id')).map(
          (r) => r.claimed_at,
        ),
      ).toEqual(['2026-11-20T15:01:00Z', '2026-11-20T15:01:00Z', '2026-11-20T15:02:00Z']);
    } finally {
      first.release();
      second.release();
    }
  });
});
