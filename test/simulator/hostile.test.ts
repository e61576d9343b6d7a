import { request } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { SimulatorInputError } from '../../src/simulator/index.js';
import { PREMIUM_AUTH, useSimulators } from './helpers.js';

const start = useSimulators();

describe('hostile answers', () => {
  it('large-body streams a valid page of about `bytes`, one field padded, without Content-Length', async () => {
    const { sim, call } = await start();
    sim.control.injectFault({ kind: 'large-body', bytes: 2_000_000, path: '/ip/notices' });
    const r = await call('/api/v1/ip/notices');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-length')).toBeNull();
    expect(Buffer.byteLength(r.text)).toBe(2_000_000);
    const notices = r.json.data as Array<{ notice: string; id: number }>;
    expect(notices).toHaveLength(20);
    expect(notices[10]!.notice).toMatch(/^x{1900000,}$/);
    expect(notices.filter((n) => n.notice.length > 100_000)).toHaveLength(1);
  });

  it('large-body pads the field asked for, or meta when there is no record', async () => {
    const { sim, call } = await start();
    sim.control.injectFault({ kind: 'large-body', bytes: 50_000, field: 'subject' });
    sim.control.injectFault({ kind: 'large-body', bytes: 50_000 });
    const subjects = (await call('/api/v1/ip/notices')).json.data as Array<{ subject: string }>;
    expect(subjects.filter((n) => n.subject.length > 1000)).toHaveLength(1);
    const hello = await call('/api/v1/hello');
    expect(hello.json.data).toEqual({ name: 'World' });
    expect((hello.json.meta.padding as string).length).toBeGreaterThan(49_000);
  });

  it('large-body stops writing when the client hangs up, and the server goes on', async () => {
    const logged: Array<Record<string, unknown>> = [];
    const logger = { info: () => undefined, warn: (o: object) => void logged.push({ ...o }) };
    const { sim, call } = await start({ logger });
    sim.control.injectFault({ kind: 'large-body', bytes: 1_000_000_000, path: '/ip/notices' });
    const received = await new Promise<number>((resolve) => {
      let n = 0;
      const url = new URL(`${sim.url}/api/v1/ip/notices`);
      const req = request(url, { headers: { authorization: PREMIUM_AUTH } }, (res) => {
        res.on('data', (chunk: Buffer) => {
          n += chunk.length;
          if (n > 1_000_000) req.destroy();
        });
      });
      req.on('error', () => undefined);
      req.on('close', () => resolve(n));
      req.end();
    });
    expect(received).toBeGreaterThan(1_000_000);
    await vi.waitFor(() => expect(logged.some((e) => e.fault === 'large-body')).toBe(true));
    const cut = logged.find((e) => e.fault === 'large-body')!;
    expect(cut.written).toBeLessThan(50_000_000);
    expect((await call('/api/v1/hello')).status).toBe(200);
  });

  it('deep-record nests one field `depth` levels of arrays, the rest of the page intact', async () => {
    const { sim, call } = await start();
    sim.control.injectFault({ kind: 'deep-record', depth: 100_000, path: '/ip/notices' });
    const r = await call('/api/v1/ip/notices');
    expect(r.text).toContain(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(r.text).not.toContain('['.repeat(100_001));
    const notices = r.json.data as Array<{ notice: unknown }>;
    expect(notices.filter((n) => Array.isArray(n.notice))).toHaveLength(1);
    expect(notices).toHaveLength(20);
  });

  it('refuses a large-body without bytes and a deep-record without depth', async () => {
    const { sim } = await start();
    expect(() => sim.control.injectFault({ kind: 'large-body' })).toThrow(SimulatorInputError);
    expect(() => sim.control.injectFault({ kind: 'large-body' })).toThrow(/needs bytes/);
    expect(() => sim.control.injectFault({ kind: 'deep-record' })).toThrow(/needs depth/);
    expect(() => sim.control.injectFault({ kind: 'deep-record', depth: 0 })).toThrow(
      SimulatorInputError,
    );
  });
});
