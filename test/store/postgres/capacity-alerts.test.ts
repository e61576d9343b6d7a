/**
 * Capacity alert state behaves the same on SQLite and on PostgreSQL: one row per rule,
 * pipeline and location, whose `since` moves only when the state changes, and which
 * records the last cycle and value judged, as numbers.
 */
import { describe, expect, it } from 'vitest';
import type { UtcIso } from '../../../src/lib/time.js';
import type { CapacityAlertChange } from '../../../src/store/capacity-alerts.js';
import { PgCapacityAlertStore } from '../../../src/store/postgres/capacity-alerts.js';
import { on } from '../../../src/store/postgres/queryable.js';
import { type Opened, STORES } from '../../support/both-stores.js';

const firing: CapacityAlertChange = {
  state: 'firing',
  episode: 1,
  last_alert_at: '2026-11-22T23:10:00Z',
  repeats: 0,
  last_cycle: '2026-11-23#1',
};

function capacityAlerts(o: Opened) {
  return o.kind === 'sqlite' ? o.store.capacityAlerts : new PgCapacityAlertStore(on(o.pool));
}

describe.each(STORES)('%s (postgres and sqlite alike)', (_, open) => {
  it('keeps one state per rule, pipeline and location', async () => {
    const c = capacityAlerts(await open());
    await c.put('low', 'transco', '1001001', firing, 40_000, '2026-11-22T23:10:00Z');
    expect(await c.get('low', 'transco', '1001001')).toEqual({
      ...firing,
      since: '2026-11-22T23:10:00Z',
      last_value: 40_000,
    });
    expect(await c.get('low', 'transco', '1001002')).toBeUndefined();
    expect(await c.get('low', 'tennessee', '1001001')).toBeUndefined();
    expect(await c.get('other', 'transco', '1001001')).toBeUndefined();
  });

  it('moves since only when the state changes, and records the last cycle and value', async () => {
    const c = capacityAlerts(await open());
    const put = (change: CapacityAlertChange, value: number, at: UtcIso) =>
      c.put('low', 'transco', '1001001', change, value, at);
    await put(firing, 40_000, '2026-11-22T23:10:00Z');
    await put(
      { ...firing, last_cycle: '2026-11-23#2', repeats: 2, last_alert_at: null },
      45_000.25,
      '2026-11-23T04:10:00Z',
    );
    expect(await c.get('low', 'transco', '1001001')).toEqual({
      state: 'firing',
      episode: 1,
      since: '2026-11-22T23:10:00Z',
      last_alert_at: null,
      repeats: 2,
      last_cycle: '2026-11-23#2',
      last_value: 45_000.25,
    });
    await put(
      { ...firing, state: 'ok', last_cycle: '2026-11-23#3' },
      70_000,
      '2026-11-23T09:10:00Z',
    );
    expect(await c.get('low', 'transco', '1001001')).toMatchObject({
      state: 'ok',
      since: '2026-11-23T09:10:00Z',
      last_cycle: '2026-11-23#3',
      last_value: 70_000,
    });
  });

  it('keeps a value that is not a number as none, and an endless one as it is', async () => {
    const c = capacityAlerts(await open());
    await c.put('low', 'transco', 'nan', firing, Number.NaN, '2026-11-22T23:10:00Z');
    await c.put('low', 'transco', 'inf', firing, Number.POSITIVE_INFINITY, '2026-11-22T23:10:00Z');
    await c.put('low', 'transco', 'neg', firing, -0.5, '2026-11-22T23:10:00Z');
    expect((await c.get('low', 'transco', 'nan'))?.last_value).toBeNull();
    expect((await c.get('low', 'transco', 'inf'))?.last_value).toBe(Number.POSITIVE_INFINITY);
    expect((await c.get('low', 'transco', 'neg'))?.last_value).toBe(-0.5);
  });
});
