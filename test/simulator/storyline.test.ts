import { describe, expect, it } from 'vitest';
import { STORY_LOCATION, Storyline } from '../../src/simulator/storyline.js';
import { qty, START, useSimulators } from './helpers.js';

const start = useSimulators();
const MINUTE = 60_000;

interface Location {
  identifier: string;
  oac: unknown;
  opc: unknown;
}
interface Capacity {
  cycle: { cycle: string; gas_day: string };
  locations: Location[];
}

describe('the demo storyline', () => {
  it('posts a Transco constraint and a Texas Eastern order due in 90 minutes', async () => {
    const { sim, call } = await start({ live: true, noticesPerHour: 0 });
    const act = new Storyline(sim.control, () => sim.now()).next();
    const page = (await call('/api/v1/ip/notices')).json.data as Array<Record<string, string>>;
    const constraint = page.find((n) => Number(n.id) === act.constraint.id)!;
    expect(constraint).toMatchObject({
      pipeline_slug: 'transco',
      type: 'Capacity Constraint',
      category: 'Critical',
      status: 'Initiate',
      response_at: '',
    });
    const order = page.find((n) => Number(n.id) === act.flowOrder.id)!;
    expect(order).toMatchObject({
      pipeline_slug: 'texas-eastern',
      category: 'CRITICAL',
      response_at: '2026-11-20 16:30:00',
    });
  });

  it('sets Station 85 low on the cycle served as latest and on the next, then back up', async () => {
    const { sim, clock, call } = await start({ live: true, noticesPerHour: 0 });
    const station = async () => {
      const latest = (await call('/api/v1/ip/capacity/transco')).json.data as Capacity;
      const l = latest.locations.find((x) => x.identifier === STORY_LOCATION.identifier)!;
      return { cycle: `${latest.cycle.cycle} ${latest.cycle.gas_day}`, oac: qty(l.oac) };
    };
    const story = new Storyline(sim.control, () => sim.now());
    const first = story.next();
    expect(first.capacity).toEqual({
      oac: 31_250,
      low: true,
      // 09:00 CST on 2026-11-20: yesterday's ID3 (10 p.m.) is the cycle posted last, so it
      // is served as latest; ID1 posts at 13:00.
      cycles: ['id3 2026-11-19', 'id1 2026-11-20'],
    });
    expect(await station()).toEqual({ cycle: 'id3 2026-11-19', oac: 31_250 });
    // The next cycle keeps its posting time and carries the values when it posts.
    clock.set('2026-11-20T18:59:00Z');
    expect((await station()).cycle).toBe('id3 2026-11-19');
    clock.set('2026-11-20T19:00:00Z');
    expect(await station()).toEqual({ cycle: 'id1 2026-11-20', oac: 31_250 });

    clock.set(new Date(Date.parse(START) + 6 * 60 * MINUTE));
    expect(story.next().capacity).toMatchObject({ oac: 142_500, low: false });
    expect(await station()).toEqual({ cycle: 'id1 2026-11-20', oac: 142_500 });
  });
});
