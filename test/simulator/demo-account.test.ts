import { describe, expect, it } from 'vitest';
import { allNotices, DEMO_AUTH, START, useSimulators } from './helpers.js';

const start = useSimulators();
const CUTOFF = '2026-10-21 15:00:00';
const DEMO_DAY = '2026-10-06';

describe('demo account', () => {
  it('sees only old notices, 5 per page, up to 3 pages, with a message on every response', async () => {
    const { call } = await start();
    const first = await call('/api/v1/ip/notices', { auth: DEMO_AUTH });
    expect(first.status).toBe(200);
    expect(first.json.messages).toHaveLength(1);
    expect(first.json.messages[0]).toMatch(/demo/i);
    expect(first.json.meta.pagination).toMatchObject({
      per_page: 5,
      total_results: 15,
      total_pages: 3,
    });
    const seen = await allNotices(call, '', DEMO_AUTH);
    expect(seen).toHaveLength(15);
    expect(seen.every((n) => n.posted_at < CUTOFF)).toBe(true);
    const beyond = await call('/api/v1/ip/notices?page=4', { auth: DEMO_AUTH });
    expect(beyond.status).toBe(200);
    expect(beyond.json.data).toEqual([]);
    expect(beyond.json.messages[0]).toMatch(/demo/i);
    const pipelines = await call('/api/v1/ip/pipelines', { auth: DEMO_AUTH });
    expect(pipelines.status).toBe(200);
    expect(pipelines.json.messages[0]).toMatch(/demo/i);
  });

  it('reads capacity of texas-eastern for the one fixed gas day only', async () => {
    const { call } = await start();
    const base = '/api/v1/ip/capacity';
    const fixed = await call(`${base}/texas-eastern`, { auth: DEMO_AUTH });
    expect(fixed.status).toBe(200);
    expect((fixed.json.data as { cycle: { gas_day: string } }).cycle.gas_day).toBe(DEMO_DAY);
    expect(fixed.json.messages[0]).toMatch(/demo/i);
    const named = await call(`${base}/texas-eastern?cycle=timely&gas_day=${DEMO_DAY}`, {
      auth: DEMO_AUTH,
    });
    expect(named.status).toBe(200);
    for (const path of [`${base}/transco`, `${base}/texas-eastern?gas_day=2026-11-19`]) {
      const r = await call(path, { auth: DEMO_AUTH });
      expect(r.status, path).toBe(403);
      expect(r.json).toMatchObject({ status: 'error', meta: {}, data: {} });
      expect(r.json.messages.length).toBe(2);
    }
  });

  it('does not limit the premium account the same way', async () => {
    const { call } = await start();
    const r = await call('/api/v1/ip/notices?page=4');
    expect((r.json.data as unknown[]).length).toBe(20);
    expect(r.json.messages).toEqual([]);
    const recent = (r.json.data as Array<{ posted_at: string }>)[0]!;
    expect(recent.posted_at > CUTOFF && recent.posted_at < START.replace('T', ' ')).toBe(true);
  });
});
