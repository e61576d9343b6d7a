/**
 * The audit trail, thread references, outages and escalations behave the same on SQLite
 * and on PostgreSQL: entries in the order written, the first reference kept, each outage
 * told once, each escalation planned once and decided.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../src/store/audit.js';
import {
  PgAuditStore,
  PgEscalationStore,
  PgOutageStore,
  PgThreadStore,
} from '../../../src/store/postgres/alert-records.js';
import { on } from '../../../src/store/postgres/queryable.js';
import { ThreadStore } from '../../../src/store/threads.js';
import { type Opened, STORES, sql } from '../../support/both-stores.js';

const NOW = '2026-11-20T15:00:00Z';

function records(o: Opened) {
  if (o.kind === 'sqlite')
    return {
      audit: o.store.audit,
      threads: new ThreadStore(o.store.db, () => NOW),
      outages: o.store.outages,
      escalations: o.store.escalations,
    };
  const db = on(o.pool);
  return {
    audit: new PgAuditStore(db),
    threads: new PgThreadStore(db, () => NOW),
    outages: new PgOutageStore(db),
    escalations: new PgEscalationStore(db),
  };
}

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  at: NOW,
  rule: 'ofo',
  event: 'notice-new',
  subject: 'notice:101',
  notice_id: 101,
  decision: 'suppressed',
  reason: 'outside business hours',
  ...over,
});

describe.each(STORES)('%s (postgres and sqlite alike)', (_, open) => {
  it('gives a notice’s audit entries in the order they were written', async () => {
    const { audit } = records(await open());
    await audit.record(entry({ at: '2026-11-20T15:02:00Z', rule: 'z-last-name' }));
    await audit.record(entry({ notice_id: 102, subject: 'notice:102' }));
    await audit.record(
      entry({ notice_id: null, subject: 'capacity:transco:X', event: 'capacity' }),
    );
    await audit.record(entry({ at: '2026-11-20T15:01:00Z', decision: 'alert', reason: '' }));
    expect(await audit.forNotice(101)).toEqual([
      entry({ at: '2026-11-20T15:02:00Z', rule: 'z-last-name' }),
      entry({ at: '2026-11-20T15:01:00Z', decision: 'alert', reason: '' }),
    ]);
    expect(await audit.forNotice(999)).toEqual([]);
    expect(await audit.forNotice(1e20)).toEqual([]);
    expect(await audit.forNotice(Number.NaN)).toEqual([]);
  });

  it('keeps the first thread reference of a subject at a target, one per pair', async () => {
    const o = await open();
    const { threads } = records(o);
    expect(await threads.get('slack:#gas', 'notice:101')).toBeUndefined();
    await threads.set('slack:#gas', 'notice:101', { channel: 'C0GAS', ts: '1.000100' });
    await threads.set('slack:#gas', 'notice:101', { channel: 'C0GAS', ts: '2.000200' });
    await threads.set('slack:#ops', 'notice:101', { ts: '2' });
    expect(await threads.get('slack:#gas', 'notice:101')).toEqual({
      channel: 'C0GAS',
      ts: '1.000100',
    });
    expect(await threads.get('slack:#ops', 'notice:101')).toEqual({ ts: '2' });
    expect(await threads.get('slack:#ops', 'notice:102')).toBeUndefined();
    expect(await sql(o, 'SELECT created_at FROM threads ORDER BY target')).toEqual([
      { created_at: NOW },
      { created_at: NOW },
    ]);
    await sql(o, `UPDATE threads SET ref = '{"channel":"C0GAS","ts":1.2}'`);
    await expect(async () => threads.get('slack:#gas', 'notice:101')).rejects.toThrow(
      'the database holds the thread reference of notice:101 at slack:#gas, which is not what pipewatch stores there: ts: ',
    );
  });

  it('tells each outage once: begun while none is, ended with what it was', async () => {
    const { outages } = records(await open());
    const feed = {
      subject: 'feed:notices',
      since: '2026-11-20T14:00:00Z',
      started_at: NOW,
      reason: 'HTTP 503',
    };
    expect(await outages.begin(feed)).toBe(true);
    expect(
      await outages.begin({ ...feed, reason: 'again', started_at: '2026-11-20T15:05:00Z' }),
    ).toBe(false);
    const target = {
      subject: 'target:slack:#ops',
      since: null,
      started_at: '2026-11-20T14:30:00Z',
      reason: 'channel_not_found',
    };
    const sameTime = { ...target, subject: 'feed:capacity', started_at: NOW };
    await outages.begin(target);
    await outages.begin(sameTime);
    expect(await outages.get('feed:notices')).toEqual(feed);
    expect(await outages.get('feed:none')).toBeUndefined();
    expect(await outages.all()).toEqual([target, sameTime, feed]);
    expect(await outages.end('feed:notices')).toEqual(feed);
    expect(await outages.end('feed:notices')).toBeUndefined();
    expect(await outages.get('feed:notices')).toBeUndefined();
    expect(await outages.begin(feed)).toBe(true);
  });

  it('plans each escalation once, and keeps what became of it', async () => {
    const { escalations } = records(await open());
    expect(await escalations.anyOpen()).toBe(false);
    expect(await escalations.plan('ofo-page', 101, '2026-11-20T15:10:00Z')).toBe(true);
    expect(await escalations.plan('ofo-page', 101, '2026-11-20T15:20:00Z')).toBe(false);
    await escalations.plan('a-page', 101, NOW);
    await escalations.plan('ofo-page', 102, NOW);
    await escalations.plan('b-page', 100, NOW);
    expect(await escalations.anyOpen()).toBe(true);
    const row = (rule: string, notice_id: number, alerted_at: string) => ({
      rule,
      notice_id,
      alerted_at,
      status: 'pending',
      decided_at: null,
    });
    expect(await escalations.open()).toEqual([
      row('a-page', 101, NOW),
      row('b-page', 100, NOW),
      row('ofo-page', 102, NOW),
      row('ofo-page', 101, '2026-11-20T15:10:00Z'),
    ]);
    await escalations.decide('ofo-page', 102, 'escalated', '2026-11-20T15:30:00Z');
    await escalations.decide('a-page', 101, 'acknowledged', '2026-11-20T15:05:00Z');
    expect((await escalations.open()).map((r) => [r.rule, r.notice_id, r.status])).toEqual([
      ['b-page', 100, 'pending'],
      ['ofo-page', 102, 'escalated'],
      ['ofo-page', 101, 'pending'],
    ]);
    expect(await escalations.forNotice(101)).toEqual([
      { ...row('a-page', 101, NOW), status: 'acknowledged', decided_at: '2026-11-20T15:05:00Z' },
      row('ofo-page', 101, '2026-11-20T15:10:00Z'),
    ]);
    expect(await escalations.forNotice(1e20)).toEqual([]);
    expect(await escalations.forNotice(1.5)).toEqual([]);
    await escalations.decide('ofo-page', 101, 'dropped', NOW);
    await escalations.decide('ofo-page', 102, 'resolved', NOW);
    await escalations.decide('b-page', 100, 'dropped', NOW);
    expect(await escalations.anyOpen()).toBe(false);
    expect(await escalations.open()).toEqual([]);
  });
});
