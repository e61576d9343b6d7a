/**
 * Capacity alert state as kept: one row per rule, pipeline and location, whose `since`
 * moves only when the state changes, and which records the last cycle and value judged.
 */
import { describe, expect, it } from 'vitest';
import type { UtcIso } from '../../src/lib/time.js';
import type { CapacityAlertChange } from '../../src/store/capacity-alerts.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-capacity-alerts-');

const firing: CapacityAlertChange = {
  state: 'firing',
  episode: 1,
  last_alert_at: '2026-11-22T23:10:00Z',
  repeats: 0,
  last_cycle: '2026-11-23#1',
};

describe('capacity alert store', () => {
  it('keeps one state per rule, pipeline and location', () => {
    temp.store.capacityAlerts.put(
      'low',
      'transco',
      '1001001',
      firing,
      40_000,
      '2026-11-22T23:10:00Z',
    );
    expect(temp.store.capacityAlerts.get('low', 'transco', '1001001')).toEqual({
      ...firing,
      since: '2026-11-22T23:10:00Z',
      last_value: 40_000,
    });
    expect(temp.store.capacityAlerts.get('low', 'transco', '1001002')).toBeUndefined();
    expect(temp.store.capacityAlerts.get('low', 'tennessee', '1001001')).toBeUndefined();
    expect(temp.store.capacityAlerts.get('other', 'transco', '1001001')).toBeUndefined();
  });

  it('moves since only when the state changes, and records the last cycle and value', () => {
    const put = (change: CapacityAlertChange, value: number, at: UtcIso) =>
      temp.store.capacityAlerts.put('low', 'transco', '1001001', change, value, at);
    put(firing, 40_000, '2026-11-22T23:10:00Z');
    put({ ...firing, last_cycle: '2026-11-23#2' }, 45_000, '2026-11-23T04:10:00Z');
    expect(temp.store.capacityAlerts.get('low', 'transco', '1001001')).toMatchObject({
      state: 'firing',
      since: '2026-11-22T23:10:00Z',
      last_cycle: '2026-11-23#2',
      last_value: 45_000,
    });
    put({ ...firing, state: 'ok', last_cycle: '2026-11-23#3' }, 70_000, '2026-11-23T09:10:00Z');
    expect(temp.store.capacityAlerts.get('low', 'transco', '1001001')).toMatchObject({
      state: 'ok',
      since: '2026-11-23T09:10:00Z',
      last_cycle: '2026-11-23#3',
      last_value: 70_000,
    });
  });
});
