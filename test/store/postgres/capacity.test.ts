/**
 * Capacity cycles behave the same on SQLite and on PostgreSQL: classified new, unchanged
 * or updated by their content whatever order the locations come in, one location per id,
 * every cycle kept and ordered by gas day then posting order, the quantities read back as
 * numbers, and each location's OAC history for its chart. On PostgreSQL an upsert is one
 * statement whatever the cycle holds.
 */
import { describe, expect, it } from 'vitest';
import { cycleHash } from '../../../src/store/capacity.js';
import { PgCapacityStore } from '../../../src/store/postgres/capacity.js';
import { on, type Queryable } from '../../../src/store/postgres/queryable.js';
import type { CapacityLocation } from '../../../src/upstream/schemas.js';
import { cycle, emerson as emersonPosted, stratton } from '../../fakes/capacity-cycles.js';
import { type Opened, STORES, sql } from '../../support/both-stores.js';

/** Emerson as the API gave it once, without its creation time. */
const emerson: CapacityLocation = { ...emersonPosted, service_created_at: null };

/** `n` locations, as a large pipeline posts them. */
function many(n: number, over: Partial<CapacityLocation> = {}): CapacityLocation[] {
  return Array.from({ length: n }, (_, i) => ({
    ...stratton,
    id: 1000 + i,
    location: `POINT ${i}`,
    identifier: String(50_000 + i),
    oac: i % 7 === 0 ? null : i * 10.5,
    ...over,
  }));
}

function capacity(o: Opened, q?: Queryable) {
  return o.kind === 'sqlite' ? o.store.capacity : new PgCapacityStore(on(q ?? o.pool));
}

describe.each(STORES)('%s (postgres and sqlite alike)', (_, open) => {
  it('classifies new, unchanged and updated by content, counting versions', async () => {
    const c = capacity(await open());
    const day = cycle('2026-11-20', 'timely');
    expect(await c.upsertCycle(day, [stratton, emerson], '2026-11-19T23:10:00Z')).toEqual({
      change: 'new',
      version: 1,
    });
    // The same content in another order is the same cycle.
    expect(await c.upsertCycle(day, [emerson, stratton], '2026-11-19T23:20:00Z')).toEqual({
      change: 'unchanged',
      version: 1,
    });
    expect(await c.latest('texas-eastern')).toMatchObject({
      first_seen_at: '2026-11-19T23:10:00Z',
      last_seen_at: '2026-11-19T23:20:00Z',
    });
    const revised = { ...stratton, tsq: 250_000, oac: 72_000 };
    expect(await c.upsertCycle(day, [revised, emerson], '2026-11-19T23:30:00Z')).toEqual({
      change: 'updated',
      version: 2,
    });
    const bumped = { ...day, service_updated_at: '2026-11-19T23:40:00Z' };
    expect(await c.upsertCycle(bumped, [revised, emerson], '2026-11-19T23:45:00Z')).toEqual({
      change: 'updated',
      version: 3,
    });
    expect(await c.upsertCycle(bumped, [emerson, revised], '2026-11-19T23:50:00Z')).toEqual({
      change: 'unchanged',
      version: 3,
    });
    const { pipeline_url: _url, ...stored } = bumped;
    expect(await c.latest('texas-eastern')).toEqual({
      ...stored,
      version: 3,
      content_hash: expect.stringMatching(/^[0-9a-f]{32}$/),
      first_seen_at: '2026-11-19T23:10:00Z',
      last_seen_at: '2026-11-19T23:50:00Z',
      location_count: 2,
    });
    expect(await c.count()).toBe(1);
  });

  it('stores the same content hash on both databases', async () => {
    const o = await open();
    const day = cycle('2026-11-20', 'id2');
    await capacity(o).upsertCycle(day, [emerson, stratton], '2026-11-20T20:00:00Z');
    expect(await sql(o, 'SELECT content_hash FROM capacity_cycles')).toEqual([
      { content_hash: cycleHash(day, [stratton, emerson]) },
    ]);
  });

  it('replaces the locations of a changed cycle, down to none', async () => {
    const c = capacity(await open());
    const day = cycle('2026-11-20', 'evening');
    await c.upsertCycle(day, [stratton, emerson], '2026-11-20T03:10:00Z');
    const added = { ...stratton, id: 103, identifier: '70001', location: 'LEIDY' };
    await c.upsertCycle(day, [{ ...emerson, oac: 1_000 }, added], '2026-11-20T03:20:00Z');
    expect(await c.locations(day.id)).toEqual([{ ...emerson, oac: 1_000 }, added]);
    expect((await c.latest('texas-eastern'))?.location_count).toBe(2);
    expect(await c.upsertCycle(day, [], '2026-11-20T03:30:00Z')).toEqual({
      change: 'updated',
      version: 3,
    });
    expect(await c.locations(day.id)).toEqual([]);
    expect((await c.latest('texas-eastern'))?.location_count).toBe(0);
  });

  it('keeps one location per id, the last one sent', async () => {
    const c = capacity(await open());
    const day = cycle('2026-11-20', 'id1');
    const again = { ...stratton, oac: 1 };
    expect(await c.upsertCycle(day, [stratton, emerson, again], '2026-11-20T19:10:00Z')).toEqual({
      change: 'new',
      version: 1,
    });
    expect(await c.locations(day.id)).toEqual([again, emerson]);
    expect((await c.latest('texas-eastern'))?.location_count).toBe(2);
    // Sent again without the duplicate: the same content.
    expect((await c.upsertCycle(day, [emerson, again], '2026-11-20T19:20:00Z')).change).toBe(
      'unchanged',
    );
  });

  it('keeps every cycle as history, each with its own locations', async () => {
    const c = capacity(await open());
    const timely = cycle('2026-11-20', 'timely');
    const evening = cycle('2026-11-20', 'evening');
    await c.upsertCycle(timely, [stratton], '2026-11-19T23:10:00Z');
    await c.upsertCycle(
      evening,
      [{ ...stratton, tsq: 300_000, oac: 22_000 }, emerson],
      '2026-11-20T03:10:00Z',
    );
    expect(await c.count()).toBe(2);
    expect((await c.cycles('texas-eastern')).map((x) => x.cycle)).toEqual(['evening', 'timely']);
    expect(await c.locations(timely.id)).toEqual([stratton]);
    expect((await c.locations(evening.id)).map((l) => l.oac)).toEqual([22_000, null]);
  });

  it('gives quantities back as numbers or null, however large, and `all` under its API name', async () => {
    const c = capacity(await open());
    const day = cycle('2026-11-20', 'id1');
    const huge = { ...stratton, id: 103, dc: 1e300, opc: -0.25, tsq: 2 ** 53 + 2, oac: 0 };
    await c.upsertCycle(day, [stratton, emerson, huge], '2026-11-20T19:10:00Z');
    const [a, b, h] = await c.locations(day.id);
    expect(a).toEqual(stratton);
    expect(b).toEqual(emerson);
    expect(h).toEqual(huge);
    expect(typeof a?.dc).toBe('number');
    expect(b?.tsq).toBe(400_199.5);
    expect(b?.oac).toBeNull();
    expect(b?.all).toBe('N');
  });

  it('stores a cycle of hundreds of locations whole', async () => {
    const c = capacity(await open());
    const day = cycle('2026-11-20', 'id3');
    const locations = many(600);
    expect((await c.upsertCycle(day, locations.toReversed(), '2026-11-21T04:10:00Z')).change).toBe(
      'new',
    );
    expect(await c.locations(day.id)).toEqual(locations);
    const changed = many(500, { reason: 'maintenance' });
    expect(await c.upsertCycle(day, changed, '2026-11-21T04:20:00Z')).toEqual({
      change: 'updated',
      version: 2,
    });
    expect(await c.locations(day.id)).toEqual(changed);
  });

  it('knows which named cycles of which gas day are stored', async () => {
    const c = capacity(await open());
    await c.upsertCycle(cycle('2026-11-20', 'id1'), [stratton], '2026-11-20T19:10:00Z');
    expect(await c.has('texas-eastern', '2026-11-20', 'id1')).toBe(true);
    expect(await c.has('texas-eastern', '2026-11-20', 'id2')).toBe(false);
    expect(await c.has('texas-eastern', '2026-11-21', 'id1')).toBe(false);
    expect(await c.has('transco', '2026-11-20', 'id1')).toBe(false);
    expect(await c.locations(1e20)).toEqual([]);
    expect(await c.locations(1.5)).toEqual([]);
  });

  it('orders by gas day, then posting order, whatever order they were stored in', async () => {
    const c = capacity(await open());
    const seen = '2026-11-21T00:00:00Z';
    expect(await c.latest('texas-eastern')).toBeUndefined();
    expect(await c.cycles('texas-eastern')).toEqual([]);
    await c.upsertCycle(cycle('2026-11-20', 'id2'), [stratton], seen);
    await c.upsertCycle(cycle('2026-11-20', 'evening'), [stratton], seen);
    expect(await c.latest('texas-eastern')).toMatchObject({ gas_day: '2026-11-20', cycle: 'id2' });
    await c.upsertCycle(cycle('2026-11-21', 'timely'), [stratton], seen);
    await c.upsertCycle(cycle('2026-11-20', 'id3'), [stratton], seen);
    await c.upsertCycle(cycle('2026-11-20', 'id1'), [stratton], seen);
    // A name the API may add later ranks first in its day.
    await c.upsertCycle(cycle('2026-11-20', 'timely', { id: 1, cycle: 'id4' }), [stratton], seen);
    expect(await c.latest('texas-eastern')).toMatchObject({
      gas_day: '2026-11-21',
      cycle: 'timely',
    });
    const other = cycle('2026-11-22', 'id3', { pipeline_slug: 'transco', pipeline_id: 3 });
    await c.upsertCycle(other, [stratton], seen);
    expect((await c.latest('texas-eastern'))?.gas_day).toBe('2026-11-21');
    expect((await c.latest('transco'))?.id).toBe(other.id);
    expect((await c.cycles('texas-eastern')).map((x) => `${x.gas_day} ${x.cycle}`)).toEqual([
      '2026-11-21 timely',
      '2026-11-20 id3',
      '2026-11-20 id2',
      '2026-11-20 id1',
      '2026-11-20 evening',
      '2026-11-20 id4',
    ]);
    expect((await c.cycles('texas-eastern', '2026-11-21')).map((x) => x.cycle)).toEqual(['timely']);
    expect(await c.cycles('texas-eastern', '2026-11-23')).toEqual([]);
  });

  it("gives the distinct locations of a pipeline's cycles seen since a time", async () => {
    const c = capacity(await open());
    const unnamed = { ...emerson, id: 103, identifier: '' };
    await c.upsertCycle(cycle('2026-11-18', 'timely'), [stratton, emerson], '2026-11-17T23:10:00Z');
    await c.upsertCycle(cycle('2026-11-20', 'timely'), [stratton, unnamed], '2026-11-19T23:10:00Z');
    await c.upsertCycle(cycle('2026-11-20', 'evening'), [stratton], '2026-11-20T03:10:00Z');
    await c.upsertCycle(
      cycle('2026-11-20', 'timely', { pipeline_slug: 'transco' }),
      [{ ...stratton, location: 'STATION 85' }],
      '2026-11-20T03:10:00Z',
    );
    const seen = async (since: string) =>
      (await c.locationsSeenSince('texas-eastern', since as never)).toSorted((a, b) =>
        `${a.location}|${a.identifier}`.localeCompare(`${b.location}|${b.identifier}`),
      );
    expect(await seen('2026-11-19T23:10:00Z')).toEqual([
      { location: 'EMERSON', identifier: '' },
      { location: 'STRATTON RIDGE', identifier: '79999' },
    ]);
    expect(await seen('2026-11-17T00:00:00Z')).toHaveLength(3);
    expect(await seen('2026-11-21T00:00:00Z')).toEqual([]);
  });

  it("gives a location's OAC and OPC over gas days, oldest first, the newest `limit`", async () => {
    const c = capacity(await open());
    const at = (oac: number, over: Partial<CapacityLocation> = {}) => [
      { ...stratton, oac, opc: oac * 2, ...over },
      { ...emerson, identifier: '', oac: oac + 1 },
    ];
    await c.upsertCycle(cycle('2026-11-19', 'timely'), at(1), '2026-11-18T23:10:00Z');
    await c.upsertCycle(cycle('2026-11-20', 'evening'), at(3), '2026-11-20T03:10:00Z');
    await c.upsertCycle(cycle('2026-11-20', 'timely'), at(2), '2026-11-19T23:10:00Z');
    await c.upsertCycle(cycle('2026-11-21', 'id1'), at(4, { oac: null }), '2026-11-21T19:10:00Z');
    await c.upsertCycle(cycle('2026-11-22', 'timely'), at(5), '2026-11-21T23:10:00Z');
    await c.upsertCycle(
      cycle('2026-11-20', 'timely', { pipeline_slug: 'transco' }),
      at(9),
      '2026-11-19T23:10:00Z',
    );
    const history = (location: string, limit: number, to = '2026-11-21') =>
      c.oacHistory('texas-eastern', location, '2026-11-20', to, limit);
    expect(await history('79999', 10)).toEqual([
      { gas_day: '2026-11-20', cycle: 'timely', oac: 2, opc: 4 },
      { gas_day: '2026-11-20', cycle: 'evening', oac: 3, opc: 6 },
      { gas_day: '2026-11-21', cycle: 'id1', oac: null, opc: 8 },
    ]);
    expect((await history('79999', 2)).map((r) => r.cycle)).toEqual(['evening', 'id1']);
    expect(await history('79999', 0)).toEqual([]);
    expect(await history('79999', -1)).toHaveLength(3);
    // By name when the location has no identifier; never by name when it has one.
    expect((await history('EMERSON', 10)).map((r) => r.oac)).toEqual([3, 4, 5]);
    expect(await history('STRATTON RIDGE', 10)).toEqual([]);
    expect(await history('79999', 10, '2026-11-19')).toEqual([]);
  });
});

describe('on PostgreSQL', () => {
  const [, open] = STORES.find(([name]) => name === 'postgres') ?? [];

  it('an upsert costs one statement, new, unchanged or updated, however many locations', async () => {
    const o = await open!();
    if (o.kind !== 'postgres') throw new Error('postgres expected');
    const statements: string[] = [];
    const counting: Queryable = {
      query: (text, values) => {
        statements.push(text);
        return o.pool.query(text, values);
      },
    };
    const c = new PgCapacityStore(on(counting));
    const day = cycle('2026-11-20', 'timely');
    const count = async (run: () => Promise<unknown>) => {
      statements.length = 0;
      await run();
      return statements.length;
    };
    expect(await count(() => c.upsertCycle(day, many(800), '2026-11-19T23:10:00Z'))).toBe(1);
    expect(await count(() => c.upsertCycle(day, many(800), '2026-11-19T23:20:00Z'))).toBe(1);
    const changed = many(700, { it: 'Y' });
    expect(await count(() => c.upsertCycle(day, changed, '2026-11-19T23:30:00Z'))).toBe(1);
    expect(await sql(o, 'SELECT count(*) AS n FROM capacity_locations')).toEqual([{ n: 700 }]);
  });
});
