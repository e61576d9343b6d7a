import { describe, expect, it } from 'vitest';
import { addDays, cyclePostedAt, NOMINATION_CYCLES } from '../../src/domain/gas-day.js';
import { qty, START, useSimulators } from './helpers.js';

const start = useSimulators();

const CAPACITY_SLUGS = [
  'transco',
  'texas-eastern',
  'tennessee',
  'east-tennessee',
  'columbia',
  'eastern-gas',
  'equitrans',
  'algonquin',
  'ngpl',
  'southern-natural',
  'anr',
  'northern-natural',
  'texas-gas',
  'gulf-south',
  'iroquois',
  'transwestern',
  'florida-gas',
  'panhandle',
  'el-paso',
  'southern-star',
];

interface Location {
  id: number;
  location: string;
  identifier: string;
  flow: string;
  qti: string;
  zone: string;
  dc: unknown;
  opc: unknown;
  tsq: unknown;
  oac: unknown;
  it: string;
  all: string;
  [key: string]: unknown;
}
interface Capacity {
  cycle: Record<string, unknown> & { cycle: string; gas_day: string };
  locations: Location[];
}

describe('capacity data', () => {
  it('serves the twenty pipelines with consistent quantities in number and string forms', async () => {
    const { call } = await start();
    const forms = new Set<string>();
    for (const slug of CAPACITY_SLUGS) {
      const r = await call(`/api/v1/ip/capacity/${slug}`);
      expect(r.status, slug).toBe(200);
      const data = r.json.data as Capacity;
      expect(Object.keys(data.cycle)).toEqual([
        'id',
        'pipeline_id',
        'pipeline_name',
        'pipeline_slug',
        'pipeline_url',
        'identifier',
        'cycle',
        'gas_day',
        'service_created_at',
        'service_updated_at',
      ]);
      expect(data.cycle.pipeline_slug).toBe(slug);
      expect(r.json.meta).toEqual({ total_locations: data.locations.length });
      expect(data.locations.length).toBeGreaterThanOrEqual(8);
      expect(data.locations.length).toBeLessThanOrEqual(30);
      for (const l of data.locations) {
        expect(Object.keys(l)).toEqual([
          'id',
          'location',
          'identifier',
          'flow',
          'qti',
          'zone',
          'dc',
          'opc',
          'tsq',
          'oac',
          'it',
          'all',
          'reason',
          'service_created_at',
          'service_updated_at',
        ]);
        forms.add(
          typeof l.dc === 'number' ? 'number' : String(l.dc).includes(',') ? 'grouped' : 'string',
        );
        const [dc, opc, tsq, oac] = [qty(l.dc), qty(l.opc), qty(l.tsq), qty(l.oac)];
        expect(dc).toBeGreaterThanOrEqual(opc);
        expect(oac).toBe(Math.max(0, opc - tsq));
        expect(oac).toBeGreaterThanOrEqual(0);
        expect(['R', 'D', 'BD']).toContain(l.flow);
        expect(['Y', 'N']).toContain(l.it);
        expect(['Y', 'N']).toContain(l.all);
      }
      expect(r.json.messages.length).toBe(slug === 'southern-star' ? 1 : 0);
    }
    expect(forms).toEqual(new Set(['number', 'string', 'grouped']));
  });

  it('includes the real rows and the locations the example rules watch', async () => {
    const { call } = await start();
    const locations = async (slug: string) =>
      ((await call(`/api/v1/ip/capacity/${slug}`)).json.data as Capacity).locations;
    const transco = await locations('transco');
    expect(transco.some((l) => l.location === 'STATION 85')).toBe(true);
    expect(transco.some((l) => l.identifier === '1001234')).toBe(true);
    const stratton = (await locations('texas-eastern')).find((l) => l.identifier === '79999')!;
    expect(stratton).toMatchObject({
      location: 'STRATTON RIDGE',
      zone: 'STX',
      flow: 'D',
      qti: 'DPQ',
      it: 'N',
      all: 'Y',
    });
    expect([qty(stratton.dc), qty(stratton.opc)]).toEqual([322_000, 322_000]);
    const emerson = (await locations('northern-natural')).find((l) => l.identifier === '33973')!;
    expect(emerson).toMatchObject({ location: 'Emerson', flow: 'R', qti: 'RPQ' });
  });

  it('swings STATION 85 OAC below 45,000 and above 65,000 across cycles', async () => {
    const { call } = await start();
    const values: number[] = [];
    for (let d = 0; d < 4; d++) {
      for (const cycle of NOMINATION_CYCLES) {
        const day = addDays('2026-11-19', -d);
        const r = await call(`/api/v1/ip/capacity/transco?cycle=${cycle}&gas_day=${day}`);
        const loc = (r.json.data as Capacity).locations.find((l) => l.location === 'STATION 85')!;
        values.push(qty(loc.oac));
      }
    }
    expect(Math.min(...values)).toBeLessThan(45_000);
    expect(Math.max(...values)).toBeGreaterThan(65_000);
  });

  it('marks the beta pipeline in messages', async () => {
    const { call } = await start();
    const r = await call('/api/v1/ip/capacity/southern-star');
    expect(r.json.messages.join(' ')).toMatch(/beta/i);
  });
});

describe('cycle resolution', () => {
  // START is 09:00 CST on 2026-11-20: the latest cycle posted is the ID3 of gas day
  // 2026-11-19 (10 p.m. yesterday), after the evening cycle of 2026-11-20 (9 p.m.).
  it('serves latest, named cycles and gas days per the NAESB timeline', async () => {
    const { call } = await start();
    const cycleOf = async (query: string) => {
      const r = await call(`/api/v1/ip/capacity/transco${query}`);
      expect(r.status, query).toBe(200);
      const c = (r.json.data as Capacity).cycle;
      return `${c.gas_day} ${c.cycle}`;
    };
    expect(await cycleOf('')).toBe('2026-11-19 id3');
    expect(await cycleOf('?cycle=latest')).toBe('2026-11-19 id3');
    expect(await cycleOf('?cycle=timely')).toBe('2026-11-20 timely');
    expect(await cycleOf('?cycle=id1')).toBe('2026-11-19 id1');
    expect(await cycleOf('?gas_day=2026-11-19')).toBe('2026-11-19 id3');
    expect(await cycleOf('?cycle=id2&gas_day=2026-11-14')).toBe('2026-11-14 id2');
  });

  it('answers 404 for cycles not yet posted', async () => {
    const { call } = await start();
    for (const query of [
      '?cycle=id1&gas_day=2026-11-20',
      '?gas_day=2026-11-22',
      '?cycle=timely&gas_day=2026-11-21',
    ]) {
      const r = await call(`/api/v1/ip/capacity/transco${query}`);
      expect(r.status, query).toBe(404);
      expect(r.json.messages[0]).toMatch(/^No capacity data found for transco/);
    }
  });

  it('rejects unknown pipelines, pipelines without capacity, bad cycles and bad gas days', async () => {
    const { call } = await start();
    const cases: Array<[string, number]> = [
      ['/no-such-pipeline', 404],
      ['/kern-river', 404],
      ['/transco?cycle=intraday', 400],
      ['/transco?cycle=', 400],
      ['/transco?gas_day=2026-13-01', 400],
      ['/transco?gas_day=20261120', 400],
    ];
    for (const [path, status] of cases) {
      const r = await call(`/api/v1/ip/capacity${path}`);
      expect(r.status, path).toBe(status);
      expect(r.json).toMatchObject({ status: 'error', meta: {}, data: {} });
    }
  });

  it('posts each cycle once simulated time reaches its posting time (live mode)', async () => {
    const { call, clock } = await start({ live: true, noticesPerHour: 0 });
    const id1 = '/api/v1/ip/capacity/transco?cycle=id1&gas_day=2026-11-20';
    expect((await call(id1)).status).toBe(404);
    const postedAt = cyclePostedAt('2026-11-20', 'id1').getTime();
    clock.advance(postedAt - Date.parse(START) - 1000);
    expect((await call(id1)).status).toBe(404);
    clock.advance(1000);
    const r = await call(id1);
    expect(r.status).toBe(200);
    expect((r.json.data as Capacity).cycle.service_created_at).toBe('2026-11-20 19:00:00');
    const latest = await call('/api/v1/ip/capacity/transco');
    expect((latest.json.data as Capacity).cycle).toMatchObject({
      gas_day: '2026-11-20',
      cycle: 'id1',
    });
    clock.advance(4 * 3_600_000);
    const later = await call('/api/v1/ip/capacity/transco');
    expect((later.json.data as Capacity).cycle).toMatchObject({
      gas_day: '2026-11-21',
      cycle: 'timely',
    });
  });

  it('keeps the cycles of the start when not live, whatever the time', async () => {
    const { call, sim } = await start();
    sim.control.advance(2 * 86_400_000);
    const r = await call('/api/v1/ip/capacity/transco');
    expect((r.json.data as Capacity).cycle).toMatchObject({
      gas_day: '2026-11-19',
      cycle: 'id3',
    });
  });
});
