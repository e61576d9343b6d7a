import { describe, expect, it } from 'vitest';
import { cycle, emerson, stratton } from '../fakes/capacity-cycles.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-capacity-');

describe('capacity store', () => {
  it('classifies new, unchanged and updated by content, counting versions', () => {
    const c = cycle('2026-11-20', 'timely');
    expect(temp.store.capacity.upsertCycle(c, [stratton, emerson], '2026-11-19T23:10:00Z')).toEqual(
      {
        change: 'new',
        version: 1,
      },
    );
    // The same content in another order is the same cycle.
    expect(temp.store.capacity.upsertCycle(c, [emerson, stratton], '2026-11-19T23:20:00Z')).toEqual(
      {
        change: 'unchanged',
        version: 1,
      },
    );
    const stored = temp.store.capacity.latest('texas-eastern')!;
    expect(stored.first_seen_at).toBe('2026-11-19T23:10:00Z');
    expect(stored.last_seen_at).toBe('2026-11-19T23:20:00Z');

    const revised = { ...stratton, tsq: 250_000, oac: 72_000 };
    expect(temp.store.capacity.upsertCycle(c, [revised, emerson], '2026-11-19T23:30:00Z')).toEqual({
      change: 'updated',
      version: 2,
    });
    const bumped = { ...c, service_updated_at: '2026-11-19T23:40:00Z' };
    expect(
      temp.store.capacity.upsertCycle(bumped, [revised, emerson], '2026-11-19T23:45:00Z'),
    ).toEqual({
      change: 'updated',
      version: 3,
    });
    expect(temp.store.capacity.latest('texas-eastern')).toMatchObject({
      id: c.id,
      version: 3,
      service_updated_at: '2026-11-19T23:40:00Z',
      first_seen_at: '2026-11-19T23:10:00Z',
      last_seen_at: '2026-11-19T23:45:00Z',
      location_count: 2,
    });
    expect(temp.store.capacity.count()).toBe(1);
  });

  it('replaces the locations of a changed cycle', () => {
    const c = cycle('2026-11-20', 'evening');
    temp.store.capacity.upsertCycle(c, [stratton, emerson], '2026-11-20T03:10:00Z');
    const added = { ...stratton, id: 103, identifier: '70001', location: 'LEIDY' };
    temp.store.capacity.upsertCycle(c, [{ ...emerson, oac: 1_000 }, added], '2026-11-20T03:20:00Z');
    expect(temp.store.capacity.locations(c.id)).toEqual([{ ...emerson, oac: 1_000 }, added]);
    expect(temp.store.capacity.latest('texas-eastern')!.location_count).toBe(2);
  });

  it('keeps every cycle as history, each with its own locations', () => {
    const timely = cycle('2026-11-20', 'timely');
    const evening = cycle('2026-11-20', 'evening');
    temp.store.capacity.upsertCycle(timely, [stratton], '2026-11-19T23:10:00Z');
    temp.store.capacity.upsertCycle(
      evening,
      [{ ...stratton, tsq: 300_000, oac: 22_000 }, emerson],
      '2026-11-20T03:10:00Z',
    );
    expect(temp.store.capacity.count()).toBe(2);
    expect(temp.store.capacity.cycles('texas-eastern').map((c) => c.cycle)).toEqual([
      'evening',
      'timely',
    ]);
    expect(temp.store.capacity.locations(timely.id)).toEqual([stratton]);
    expect(temp.store.capacity.locations(evening.id).map((l) => l.oac)).toEqual([22_000, null]);
  });

  it('gives quantities back as numbers or null, and `all` under its API name', () => {
    const c = cycle('2026-11-20', 'id1');
    temp.store.capacity.upsertCycle(c, [stratton, emerson], '2026-11-20T19:10:00Z');
    const [a, b] = temp.store.capacity.locations(c.id);
    expect(a).toEqual(stratton);
    expect(b).toEqual(emerson);
    expect(typeof a!.dc).toBe('number');
    expect(b!.tsq).toBe(400_199.5);
    expect(b!.oac).toBeNull();
    expect(b!.all).toBe('N');
  });

  it('knows which named cycles of which gas day are stored', () => {
    temp.store.capacity.upsertCycle(cycle('2026-11-20', 'id1'), [stratton], '2026-11-20T19:10:00Z');
    expect(temp.store.capacity.has('texas-eastern', '2026-11-20', 'id1')).toBe(true);
    expect(temp.store.capacity.has('texas-eastern', '2026-11-20', 'id2')).toBe(false);
    expect(temp.store.capacity.has('texas-eastern', '2026-11-21', 'id1')).toBe(false);
    expect(temp.store.capacity.has('transco', '2026-11-20', 'id1')).toBe(false);
  });

  it('orders by gas day, then posting order, whatever order they were stored in', () => {
    const seen = '2026-11-21T00:00:00Z';
    expect(temp.store.capacity.latest('texas-eastern')).toBeUndefined();
    temp.store.capacity.upsertCycle(cycle('2026-11-20', 'id2'), [stratton], seen);
    temp.store.capacity.upsertCycle(cycle('2026-11-20', 'evening'), [stratton], seen);
    expect(temp.store.capacity.latest('texas-eastern')).toMatchObject({
      gas_day: '2026-11-20',
      cycle: 'id2',
    });
    temp.store.capacity.upsertCycle(cycle('2026-11-21', 'timely'), [stratton], seen);
    temp.store.capacity.upsertCycle(cycle('2026-11-20', 'id3'), [stratton], seen);
    temp.store.capacity.upsertCycle(cycle('2026-11-20', 'id1'), [stratton], seen);
    expect(temp.store.capacity.latest('texas-eastern')).toMatchObject({
      gas_day: '2026-11-21',
      cycle: 'timely',
    });
    const other = cycle('2026-11-22', 'id3', { pipeline_slug: 'transco', pipeline_id: 3 });
    temp.store.capacity.upsertCycle(other, [stratton], seen);
    expect(temp.store.capacity.latest('texas-eastern')!.gas_day).toBe('2026-11-21');
    expect(temp.store.capacity.latest('transco')!.id).toBe(other.id);
    expect(
      temp.store.capacity.cycles('texas-eastern').map((c) => `${c.gas_day} ${c.cycle}`),
    ).toEqual([
      '2026-11-21 timely',
      '2026-11-20 id3',
      '2026-11-20 id2',
      '2026-11-20 id1',
      '2026-11-20 evening',
    ]);
    expect(temp.store.capacity.cycles('texas-eastern', '2026-11-21').map((c) => c.cycle)).toEqual([
      'timely',
    ]);
  });

  it('survives a reopen of the database file', () => {
    const c = cycle('2026-11-20', 'id3');
    temp.store.capacity.upsertCycle(c, [stratton, emerson], '2026-11-21T04:10:00Z');
    temp.reopen();
    expect(temp.store.capacity.locations(c.id)).toEqual([stratton, emerson]);
    expect(
      temp.store.capacity.upsertCycle(c, [stratton, emerson], '2026-11-21T04:20:00Z').change,
    ).toBe('unchanged');
  });
});
