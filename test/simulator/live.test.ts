import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { allNotices, type NoticeRow, START, useSimulators } from './helpers.js';

const start = useSimulators();
const HOUR = 3_600_000;

const PATHS = [
  '/api/v1/ip/notices',
  '/api/v1/ip/notices?page=7&pipeline=transco',
  '/api/v1/ip/pipelines',
  '/api/v1/ip/capacity/transco?cycle=id2&gas_day=2026-11-18',
  '/api/v1/ip/capacity/northern-natural',
];

describe('determinism', () => {
  it('serves identical responses for the same seed and start, different ones for another seed', async () => {
    const texts = async (seed: number) => {
      const { call, sim } = await start({ seed, urlStyle: 'path' });
      const out = await Promise.all(PATHS.map(async (p) => (await call(p)).text));
      await sim.close();
      return out;
    };
    const a = await texts(5);
    const b = await texts(5);
    const c = await texts(6);
    expect(b).toEqual(a);
    expect(c[0]).not.toEqual(a[0]);
    expect(c[4]).not.toEqual(a[4]);
  });

  it('produces the same live events however the time is stepped', async () => {
    const run = async (steps: number[]) => {
      const { call, clock } = await start({
        seed: 9,
        live: true,
        noticesPerHour: 12,
        urlStyle: 'path',
      });
      for (const step of steps) {
        clock.advance(step);
        await call('/api/v1/ip/notices');
      }
      return (await call('/api/v1/ip/notices')).text;
    };
    const once = await run([6 * HOUR]);
    const stepped = await run([HOUR, 2 * HOUR, 30 * 60_000, 2.5 * HOUR]);
    expect(stepped).toBe(once);
  });
});

describe('live mode', () => {
  it('posts new notices, supersedes and updates as simulated time passes', async () => {
    const { call, clock, sim } = await start({ live: true, noticesPerHour: 20 });
    const before = await allNotices(call);
    const maxId = Math.max(...before.map((n) => n.id));
    expect((await allNotices(call)).length).toBe(before.length);

    clock.advance(12 * HOUR);
    expect(sim.now().toISOString()).toBe('2026-11-21T03:00:00.000Z');
    const after = await allNotices(call);
    const fresh = after.filter((n) => n.id > maxId);
    expect(fresh.length).toBeGreaterThan(100);
    const startText = START.replace('T', ' ').slice(0, 19);
    for (const n of fresh) {
      expect(n.service_created_at > startText).toBe(true);
      expect(n.posted_at <= n.service_created_at).toBe(true);
    }
    expect(fresh.some((n) => /supersede|terminate/i.test(n.status as string))).toBe(true);
    const updated = after.filter((n) => n.id <= maxId && n.service_updated_at > startText);
    expect(updated.length).toBeGreaterThan(0);
    const newest = after[0] as NoticeRow;
    expect(newest.posted_at <= '2026-11-21 03:00:00').toBe(true);
  });

  it('adds nothing by itself when not live', async () => {
    const { call, clock } = await start({ live: false });
    const before = (await call('/api/v1/ip/notices')).text;
    clock.advance(24 * HOUR);
    expect((await call('/api/v1/ip/notices')).text).toBe(before);
  });

  it('runs simulated time at `speed` times the clock, plus control advances', async () => {
    const clock = new ManualClock(START);
    const { sim } = await start({ clock, speed: 60, startAt: new Date('2026-01-01T00:00:00Z') });
    clock.advance(60_000);
    expect(sim.now().toISOString()).toBe('2026-01-01T01:00:00.000Z');
    sim.control.advance(30 * 60_000);
    expect(sim.now().toISOString()).toBe('2026-01-01T01:30:00.000Z');
  });
});
