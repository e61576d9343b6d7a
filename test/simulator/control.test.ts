import { describe, expect, it } from 'vitest';
import { SimulatorInputError } from '../../src/simulator/index.js';
import { useSimulators } from './helpers.js';

const start = useSimulators();

const post = async (base: string, path: string, body: unknown, method = 'POST') => {
  const res = await fetch(`${base}/_control${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: res.status,
    // biome-ignore lint/suspicious/noExplicitAny: assertions below read arbitrary data fields
    json: (await res.json()) as { status: string; messages: string[]; data: any },
  };
};

describe('control API over HTTP', () => {
  it('is not served unless enabled', async () => {
    const { sim } = await start();
    const r = await post(sim.url, '/notices', { pipeline_slug: 'transco' });
    expect(r.status).toBe(404);
    expect(r.json.status).toBe('error');
  });

  it('adds and updates notices', async () => {
    const { sim, call } = await start({ control: true });
    const added = await post(sim.url, '/notices', {
      pipeline_slug: 'transco',
      subject: 'Operational Flow Order - Imbalance',
      html: '<p>OFO <b>now</b> &amp; later</p>',
    });
    expect(added.status).toBe(200);
    const notice = added.json.data;
    expect(notice).toMatchObject({
      pipeline_slug: 'transco',
      subject: 'Operational Flow Order - Imbalance',
      notice: 'OFO now & later',
      posted_at: '2026-11-20 15:00:00',
      service_created_at: '2026-11-20 15:00:00',
    });
    const top = (await call('/api/v1/ip/notices')).json.data as Array<{ id: number }>;
    expect(top[0]!.id).toBe(notice.id);
    expect(notice.id).toBeGreaterThan(Math.max(...top.slice(1).map((n) => n.id)));

    const updated = await post(sim.url, '/notices', { id: notice.id, status: 'Terminate' });
    expect(updated.json.data).toMatchObject({ id: notice.id, status: 'Terminate' });
    expect(updated.json.data.service_updated_at > notice.service_updated_at).toBe(true);

    expect((await post(sim.url, '/notices', { id: 1, status: 'x' })).status).toBe(400);
    expect((await post(sim.url, '/notices', { pipeline_slug: 'nowhere' })).status).toBe(400);
    expect((await post(sim.url, '/notices', { pipeline_slug: 'transco', bogus: 1 })).status).toBe(
      400,
    );
    expect((await post(sim.url, '/notices', '{not json')).status).toBe(400);
  });

  it('publishes capacity cycles that override generated locations', async () => {
    const { sim, call } = await start({ control: true });
    const r = await post(sim.url, '/capacity', {
      pipeline_slug: 'transco',
      cycle: 'id1',
      locations: [
        { identifier: '1000085', oac: 12_000 },
        { identifier: '9999999', location: 'NEW POINT', opc: '50,000', tsq: 20_000 },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.json.data.cycle).toMatchObject({ gas_day: '2026-11-20', cycle: 'id1' });
    const served = await call('/api/v1/ip/capacity/transco');
    const data = served.json.data as {
      cycle: { cycle: string };
      locations: Array<Record<string, unknown>>;
    };
    expect(data.cycle.cycle).toBe('id1');
    const station = data.locations.find((l) => l.identifier === '1000085')!;
    expect(station.oac).toBe(12_000);
    expect(Number(station.opc) - Number(station.tsq)).toBe(12_000);
    expect(data.locations.find((l) => l.identifier === '9999999')).toMatchObject({
      location: 'NEW POINT',
      oac: 30_000,
    });
    expect(served.json.meta).toEqual({ total_locations: data.locations.length });

    expect(
      (await post(sim.url, '/capacity', { pipeline_slug: 'kern-river', cycle: 'id1' })).status,
    ).toBe(400);
    expect(
      (await post(sim.url, '/capacity', { pipeline_slug: 'transco', cycle: 'id4' })).status,
    ).toBe(400);
    const bad = await post(sim.url, '/capacity', {
      pipeline_slug: 'transco',
      cycle: 'id1',
      locations: [{ identifier: 'x', oac: 'lots' }],
    });
    expect(bad.status).toBe(400);
  });

  it('queues and clears faults, changes the catalog and moves the clock', async () => {
    const { sim, call } = await start({ control: true });
    expect((await post(sim.url, '/faults', { kind: '503', retryAfter: 2 })).status).toBe(200);
    expect((await call('/api/v1/hello')).status).toBe(503);
    await post(sim.url, '/faults', { kind: '500', count: 4 });
    expect((await post(sim.url, '/faults', {}, 'DELETE')).status).toBe(200);
    expect((await call('/api/v1/hello')).status).toBe(200);
    expect((await post(sim.url, '/faults', { kind: 'nope' })).status).toBe(400);

    const before = (await call('/api/v1/catalog/hashes')).json.data as Record<string, string>;
    const changed = await post(sim.url, '/catalog', {
      table: 'pipelines',
      field: { name: 'REGION', type: 'VARCHAR(255)', description: 'Region.' },
    });
    expect(changed.status).toBe(200);
    expect(changed.json.data.pipelines).not.toBe(before.pipelines);
    expect((await post(sim.url, '/catalog', { table: 'capacity', field: {} })).status).toBe(400);

    const moved = await post(sim.url, '/clock', { advance_ms: 3_600_000 });
    expect(moved.json.data).toEqual({ now: '2026-11-20 16:00:00' });
    expect(sim.now().toISOString()).toBe('2026-11-20T16:00:00.000Z');
    expect((await post(sim.url, '/clock', { advance_ms: -5 })).status).toBe(400);
    expect((await post(sim.url, '/nothing', {})).status).toBe(404);
    expect((await post(sim.url, '/notices', {}, 'PUT')).status).toBe(405);
  });
});

describe('control in process', () => {
  it('throws SimulatorInputError for bad input and works without live mode', async () => {
    const { sim } = await start();
    expect(() => sim.control.addNotice({ pipeline_slug: 'nope' })).toThrow(SimulatorInputError);
    expect(() => sim.control.updateNotice(-1, {})).toThrow(SimulatorInputError);
    expect(() => sim.control.advance(-1)).toThrow(SimulatorInputError);
    const n = sim.control.addNotice({ pipeline_slug: 'anr', notice: 'Line 1\nLine 2 <b>' });
    expect(n.html).toBe('<p>Line 1<br>Line 2 &lt;b&gt;</p>');
    expect(n.pipeline_name).toBe('ANR Pipeline');
    const published = sim.control.publishCycle({ pipeline_slug: 'transco', cycle: 'timely' });
    expect(published.cycle.gas_day).toBe('2026-11-21');
  });
});
