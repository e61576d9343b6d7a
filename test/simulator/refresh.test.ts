import { describe, expect, it } from 'vitest';
import { parseDateTime } from '../../src/simulator/sim-time.js';
import { allNotices, type NoticeRow, START, useSimulators } from './helpers.js';

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

  it('dates the history by the same refreshes: creations and updates at a refresh, nothing else moved', async () => {
    const history = { historyDays: 10, perPage: 500 };
    const batched = await start({ ...history, refreshEveryMs: 10 * MINUTE });
    const atOnce = await start({ ...history, refreshEveryMs: 0 });
    const byId = new Map((await allNotices(atOnce.call)).map((n) => [n.id, n]));
    const served = await allNotices(batched.call);
    expect(served.length).toBeGreaterThan(300);
    const slot = (text: string) => parseDateTime(text) % (10 * MINUTE);
    for (const n of served) {
      const plain = byId.get(n.id) as NoticeRow;
      const { service_created_at: c, service_updated_at: u, ...rest } = n;
      const { service_created_at: c0, service_updated_at: u0, ...plainRest } = plain;
      expect(rest).toEqual(plainRest);
      // The first refresh at or after the event: up to 90 s into a slot, under a period later.
      expect(slot(c)).toBeLessThanOrEqual(90_000);
      expect(c >= c0).toBe(true);
      expect(parseDateTime(c) - parseDateTime(c0)).toBeLessThan(10 * MINUTE + 90_000);
      expect(slot(u)).toBeLessThanOrEqual(90_000);
      expect(u >= c).toBe(true);
      if (u0 === c0) expect(u).toBe(c);
    }
    // Refreshes, not one instant: the history spans many of them, jitter and all.
    const refreshes = new Set(served.map((n) => n.service_created_at));
    expect(refreshes.size).toBeGreaterThan(250);
    expect(new Set([...refreshes].map(slot)).size).toBeGreaterThan(20);
  });

  it('serves the last events before the start from the first refresh after it', async () => {
    const { call, clock } = await start({ refreshEveryMs: 10 * MINUTE, historyDays: 3 });
    const startText = START.replace('T', ' ').slice(0, 19);
    const atStart = await allNotices(call);
    for (const n of atStart) expect(n.service_created_at <= startText).toBe(true);
    clock.advance(12 * MINUTE);
    const later = (await allNotices(call)).filter((n) => !atStart.some((m) => m.id === n.id));
    // Not live: what appears is history, posted before the start, dated by its refresh.
    expect(later.length).toBeGreaterThan(0);
    for (const n of later) {
      expect(n.service_created_at > startText).toBe(true);
      expect(n.posted_at < startText).toBe(true);
    }
  });

  it('rejects a refresh period that is not a whole number of ms from 0 to a day', async () => {
    await expect(start({ refreshEveryMs: -1 })).rejects.toThrow(/refreshEveryMs/);
  });
});
