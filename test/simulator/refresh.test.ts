import { describe, expect, it } from 'vitest';
import { parseDateTime } from '../../src/simulator/sim-time.js';
import { START, useSimulators } from './helpers.js';

const start = useSimulators();
const MINUTE = 60_000;

/** Polls page 1 every minute for `hours`; each new notice with when it was first served. */
async function watch(opts: { refreshEveryMs: number; hours: number }) {
  const { call, clock } = await start({
    live: true,
    noticesPerHour: 30,
    refreshEveryMs: opts.refreshEveryMs,
  });
  const seen = new Map<number, { created: number; firstSeen: number }>();
  const known = new Set(
    ((await call('/api/v1/ip/notices')).json.data as Array<{ id: number }>).map((n) => n.id),
  );
  for (let m = 0; m < opts.hours * 60; m++) {
    clock.advance(MINUTE);
    const page = (await call('/api/v1/ip/notices')).json.data as Array<{
      id: number;
      service_created_at: string;
    }>;
    for (const n of page) {
      if (known.has(n.id) || seen.has(n.id)) continue;
      seen.set(n.id, {
        created: parseDateTime(n.service_created_at),
        firstSeen: clock.now().getTime(),
      });
    }
  }
  return [...seen.values()];
}

describe('refresh batches', () => {
  it('publishes live notices only at refreshes about every 10 minutes, each up to 90 s late', async () => {
    const fresh = await watch({ refreshEveryMs: 10 * MINUTE, hours: 3 });
    expect(fresh.length).toBeGreaterThan(40);
    const refreshes = new Set(fresh.map((n) => n.created));
    expect(refreshes.size).toBeLessThanOrEqual(18);
    expect(refreshes.size).toBeGreaterThan(10);
    for (const n of fresh) {
      const late = n.created % (10 * MINUTE);
      expect(late).toBeLessThanOrEqual(90_000);
      // Served from its refresh on: the poll just after it saw it, none before.
      expect(n.created).toBeLessThanOrEqual(n.firstSeen);
      expect(n.firstSeen - n.created).toBeLessThan(MINUTE);
    }
    // The jitter is real: refreshes do not all land at the same second of their slot.
    expect(new Set([...refreshes].map((r) => r % (10 * MINUTE))).size).toBeGreaterThan(3);
  });

  it('refreshes every minute for an enterprise account', async () => {
    const fresh = await watch({ refreshEveryMs: MINUTE, hours: 1 });
    const refreshes = new Set(fresh.map((n) => n.created));
    expect(refreshes.size).toBeGreaterThan(12);
    for (const r of refreshes) expect(r % MINUTE).toBeLessThanOrEqual(9_000);
  });

  it('publishes each notice the instant it happens when the period is 0', async () => {
    const fresh = await watch({ refreshEveryMs: 0, hours: 1 });
    const offsets = new Set(fresh.map((n) => Math.floor((n.created % (10 * MINUTE)) / MINUTE)));
    expect(offsets.size).toBeGreaterThan(6);
  });

  it('keeps notices added through the control API immediate', async () => {
    const { sim, call, clock } = await start({ live: true, control: true });
    clock.advance(3 * MINUTE + 7_000);
    const added = sim.control.addNotice({ pipeline_slug: 'transco', subject: 'At once' });
    const page = (await call('/api/v1/ip/notices')).json.data as Array<{
      id: number;
      service_created_at: string;
    }>;
    const served = page.find((n) => n.id === added.id);
    expect(served?.service_created_at).toBe(
      new Date(Date.parse(START) + 3 * MINUTE + 7_000).toISOString().slice(0, 19).replace('T', ' '),
    );
  });

  it('rejects a refresh period that is not a whole number of ms from 0 to a day', async () => {
    await expect(start({ refreshEveryMs: -1 })).rejects.toThrow(/refreshEveryMs/);
  });
});
