/**
 * The outbox's own statements, below the dispatcher: which deliveries are due, which can
 * be claimed, how they are found by subject, and what `status` says about them. Payloads
 * are opaque JSON text to the store. The backlog, and what both stores do alike, are in the
 * shared suite (`postgres/outbox.test.ts`).
 */
import { describe, expect, it } from 'vitest';
import { DeliveryErrorCode } from '../../src/channels/types.js';
import { type Target, targetKey } from '../../src/domain/targets.js';
import type { UtcIso } from '../../src/lib/time.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-outbox-');

const OPS: Target = { kind: 'slack', channel: '#ops' };
const GAS: Target = { kind: 'slack', channel: '#gas' };

/** Queues `subject` for `target` at `at`; returns its row id. */
function enqueue(subject: string, target: Target, at: UtcIso): number {
  expect(temp.store.outbox.enqueue(subject, 'rule', target, '{"kind":"notice"}', at)).toBe(true);
  return temp.store.db
    .prepare<[string, string], { id: number }>(
      'SELECT id FROM outbox WHERE subject = ? AND target = ?',
    )
    .get(subject, targetKey(target))!.id;
}

const claimedAt = (id: number) =>
  temp.store.db
    .prepare<[number], { claimed_at: string | null }>('SELECT claimed_at FROM outbox WHERE id = ?')
    .get(id)!.claimed_at;

describe('outbox store', () => {
  it('gives due deliveries oldest first, leaving out those in flight and those not yet due', () => {
    const later = enqueue('notice:3:v1', GAS, '2026-11-20T15:10:00Z');
    const first = enqueue('notice:1:v1', OPS, '2026-11-20T15:00:00Z');
    const claimed = enqueue('notice:2:v1', GAS, '2026-11-20T15:05:00Z');
    temp.store.outbox.claim([claimed], '2026-11-20T15:06:00Z');
    expect(temp.store.outbox.due('2026-11-20T15:10:00Z').map((r) => r.id)).toEqual([first, later]);
    expect(temp.store.outbox.due('2026-11-20T15:09:59Z').map((r) => r.id)).toEqual([first]);
    temp.store.outbox.markSent([first], '2026-11-20T15:11:00Z', 'ok');
    temp.store.outbox.markDead([later], 'gone');
    expect(temp.store.outbox.due('2026-11-20T15:10:00Z')).toEqual([]);
  });

  it('claims only pending deliveries', () => {
    const sent = enqueue('notice:1:v1', OPS, '2026-11-20T15:00:00Z');
    const pending = enqueue('notice:2:v1', OPS, '2026-11-20T15:00:00Z');
    temp.store.outbox.markSent([sent], '2026-11-20T15:01:00Z', 'ok');
    temp.store.outbox.claim([sent, pending], '2026-11-20T15:02:00Z');
    expect(claimedAt(sent)).toBeNull();
    expect(claimedAt(pending)).toBe('2026-11-20T15:02:00Z');
  });

  it('finds deliveries by subject, taking % and _ in it literally', () => {
    enqueue('capacity:gulf_south:2026-11-21', OPS, '2026-11-20T15:00:00Z');
    enqueue('capacity:gulfXsouth:2026-11-21', OPS, '2026-11-20T15:00:00Z');
    enqueue('capacity:100%:2026-11-21', OPS, '2026-11-20T15:00:00Z');
    enqueue('capacity:1000:2026-11-21', OPS, '2026-11-20T15:00:00Z');
    expect(temp.store.outbox.forSubject('capacity:gulf_south:').map((r) => r.key)).toEqual([
      'rule|capacity:gulf_south:2026-11-21|slack:#ops',
    ]);
    expect(temp.store.outbox.forSubject('capacity:100%:').map((r) => r.key)).toEqual([
      'rule|capacity:100%:2026-11-21|slack:#ops',
    ]);
    expect(temp.store.outbox.forSubject('capacity:')[0]?.payload).toEqual({ kind: 'notice' });
  });

  it('summarises the oldest pending delivery, and dead ones by kind, the most frequent first', () => {
    const sent = enqueue('notice:1:v1', OPS, '2026-11-20T14:00:00Z');
    temp.store.outbox.markSent([sent], '2026-11-20T14:01:00Z', 'ok');
    enqueue('notice:2:v1', OPS, '2026-11-20T15:00:00Z');
    enqueue('notice:3:v1', OPS, '2026-11-20T16:00:00Z');
    const dead = [
      enqueue('notice:4:v1', GAS, '2026-11-20T13:00:00Z'),
      enqueue('notice:5:v1', GAS, '2026-11-20T13:10:00Z'),
      enqueue('notice:6:v1', GAS, '2026-11-20T13:20:00Z'),
      enqueue('notice:7:v1', GAS, '2026-11-20T13:30:00Z'),
    ];
    temp.store.outbox.markDead([dead[0]!], 'slack: channel_not_found', 'NOT_FOUND');
    temp.store.outbox.markDead([dead[1]!, dead[2]!], 'slack: not_in_channel', 'FORBIDDEN');
    temp.store.outbox.markDead([dead[3]!], 'slack: missing_scope', 'FORBIDDEN');
    expect(temp.store.outbox.summary()).toEqual({
      pending: 2,
      sent: 1,
      dead: 4,
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
          code: 'NOT_FOUND',
          reason: 'slack: channel_not_found',
          reasons: 1,
          count: 1,
          last_at: '2026-11-20T13:00:00Z',
        },
      ],
    });
  });

  it('names every kind of dead delivery, however many kinds there are', () => {
    const codes = Object.values(DeliveryErrorCode);
    codes.forEach((code, i) => {
      const id = enqueue(`notice:${i + 10}:v1`, GAS, '2026-11-20T13:00:00Z');
      temp.store.outbox.markDead([id], `failed with ${code}`, code);
    });
    const id = enqueue('notice:99:v1', GAS, '2026-11-20T13:00:00Z');
    temp.store.outbox.markDead([id], 'failed before codes were kept');
    const reasons = temp.store.outbox.summary().dead_reasons;
    expect(reasons.map((r) => r.code).sort()).toEqual([...codes, null].sort());
    expect(reasons.reduce((n, r) => n + r.count, 0)).toBe(temp.store.outbox.summary().dead);
  });
});
