import { describe, expect, it, vi } from 'vitest';
import { SimulatorInputError } from '../../src/simulator/index.js';
import { PREMIUM_AUTH, useSimulators } from './helpers.js';

const start = useSimulators();

describe('faults', () => {
  it('answers 500 for `count` matching requests, then recovers', async () => {
    const { sim, call } = await start();
    sim.control.injectFault({ kind: '500', count: 2, path: '/ip/notices' });
    expect((await call('/api/v1/hello')).status).toBe(200);
    const first = await call('/api/v1/ip/notices');
    expect(first.status).toBe(500);
    expect(first.json).toMatchObject({ status: 'error', meta: {}, data: {} });
    expect((await call('/api/v1/ip/notices?page=2')).status).toBe(500);
    expect((await call('/api/v1/ip/notices')).status).toBe(200);
  });

  it('sends Retry-After with 503 and 429 when given, and applies faults first in first out', async () => {
    const { sim, call } = await start();
    sim.control.injectFault({ kind: '503', retryAfter: 7 });
    sim.control.injectFault({ kind: '429', retryAfter: 3 });
    sim.control.injectFault({ kind: '429' });
    const unavailable = await call('/api/v1/ip/pipelines');
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('7');
    const limited = await call('/api/v1/catalog/tables', { auth: null });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(limited.json.messages[0]).toMatch(/too many requests/i);
    const bare = await call('/api/v1/hello');
    expect(bare.status).toBe(429);
    expect(bare.headers.get('retry-after')).toBeNull();
    expect((await call('/api/v1/hello')).status).toBe(200);
  });

  it('holds a delayed response until the clock has moved delayMs', async () => {
    const { sim, clock, call } = await start();
    sim.control.injectFault({ kind: 'delay', delayMs: 30_000, path: '/ip/pipelines' });
    let settled = false;
    const pending = call('/api/v1/ip/pipelines').finally(() => {
      settled = true;
    });
    await vi.waitFor(() => expect(clock.pending).toBe(1));
    clock.advance(29_999);
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    clock.advance(1);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.json.meta).toHaveProperty('total_results');
  });

  it('gives up a delayed response quietly when the client disconnects', async () => {
    const { sim, clock } = await start();
    sim.control.injectFault({ kind: 'delay', delayMs: 60_000 });
    const abort = new AbortController();
    const pending = fetch(`${sim.url}/api/v1/hello`, { signal: abort.signal });
    await vi.waitFor(() => expect(clock.pending).toBe(1));
    abort.abort();
    await expect(pending).rejects.toThrow();
    await vi.waitFor(() => expect(clock.pending).toBe(0));
    expect((await fetch(`${sim.url}/api/v1/hello`)).status).toBe(200);
  });

  it('closes promptly while a delayed response is held', async () => {
    const { sim, clock } = await start();
    sim.control.injectFault({ kind: 'delay', delayMs: 60_000 });
    const pending = fetch(`${sim.url}/api/v1/hello`).then(
      () => 'answered',
      () => 'failed',
    );
    await vi.waitFor(() => expect(clock.pending).toBe(1));
    await sim.close();
    expect(await pending).toBe('failed');
  });

  it('sends truncated JSON with status 200 for malformed-json', async () => {
    const { sim, call } = await start();
    sim.control.injectFault({ kind: 'malformed-json', path: '/ip/notices' });
    const r = await call('/api/v1/ip/notices');
    expect(r.status).toBe(200);
    expect(r.text.startsWith('{"status":"success"')).toBe(true);
    expect(() => JSON.parse(r.text)).toThrow();
  });

  it('breaks one field of one record for broken-record, keeping its id valid', async () => {
    const { sim, call } = await start();
    sim.control.injectFault({ kind: 'broken-record', path: '/ip/notices' });
    const notices = (await call('/api/v1/ip/notices')).json.data as Array<Record<string, unknown>>;
    const broken = notices.filter((n) => n.posted_at === 'not-a-date');
    expect(broken).toHaveLength(1);
    expect(Number.isInteger(broken[0]!.id)).toBe(true);
    expect(notices.filter((n) => n.posted_at !== 'not-a-date')).toHaveLength(19);

    sim.control.injectFault({ kind: 'broken-record', path: '/ip/capacity' });
    const capacity = (await call('/api/v1/ip/capacity/transco')).json.data as {
      locations: Array<Record<string, unknown>>;
    };
    expect(capacity.locations.filter((l) => l.oac === 'n/a')).toHaveLength(1);
    const again = (await call('/api/v1/ip/capacity/transco')).json.data as typeof capacity;
    expect(again.locations.some((l) => l.oac === 'n/a')).toBe(false);
  });

  it('drops the connection without a response for reset', async () => {
    const { sim, call } = await start();
    sim.control.injectFault({ kind: 'reset' });
    await expect(call('/api/v1/ip/notices')).rejects.toThrow();
    expect((await call('/api/v1/ip/notices')).status).toBe(200);
  });

  it('clears queued faults and rejects invalid ones', async () => {
    const { sim, call } = await start();
    sim.control.injectFault({ kind: '500', count: 5 });
    sim.control.clearFaults();
    expect((await call('/api/v1/hello')).status).toBe(200);
    expect(() => sim.control.injectFault({ kind: 'boom' as '500' })).toThrow(SimulatorInputError);
    expect(() => sim.control.injectFault({ kind: '500', count: 0 })).toThrow(SimulatorInputError);
    expect(() => sim.control.injectFault({ kind: 'delay' })).toThrow(/delayMs/);
  });

  it('leaves the control API alone', async () => {
    const { sim } = await start({ control: true });
    sim.control.injectFault({ kind: '500', count: 3 });
    const r = await fetch(`${sim.url}/_control/clock`, {
      headers: { authorization: PREMIUM_AUTH },
    });
    expect(r.status).toBe(200);
  });
});
