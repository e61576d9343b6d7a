/**
 * An API that sends values no page should hold: the client loses only the record at
 * fault when one record is too large or too deep.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InstantClock, ManualClock } from '../../src/lib/clock.js';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { type ClientOptions, PipelineApiClient } from '../../src/upstream/client.js';
import { TEXT_LIMITS } from '../../src/upstream/schemas.js';
import { type ScriptedApi, startScriptedApi } from '../fakes/scripted-api.js';

const START = new Date('2026-11-20T15:00:00Z');
const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
const MB = 1_000_000;

let sim: Simulator;
const clients: PipelineApiClient[] = [];
const fakes: ScriptedApi[] = [];

function client(options: Partial<ClientOptions> = {}, baseUrl = sim.url): PipelineApiClient {
  const api = new PipelineApiClient({
    baseUrl,
    user: premium.username,
    key: premium.key,
    clock: new InstantClock(START),
    random: () => 1,
    rateLimit: { maxConcurrent: 4, minTimeMs: 0 },
    ...options,
  });
  clients.push(api);
  return api;
}

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, startAt: START, clock: new ManualClock(START) });
});
afterEach(async () => {
  sim.control.clearFaults();
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});
afterAll(async () => {
  await sim.close();
});

describe('a record too large or too deep', () => {
  it('is skipped for a text over its limit, naming the field; the rest of the page arrives', async () => {
    sim.control.injectFault({ kind: 'large-body', bytes: 3 * MB, path: '/ip/notices' });
    const page = await client().notices();
    expect(page.data).toHaveLength(19);
    expect(page.skipped).toHaveLength(1);
    expect(page.skipped[0]).toMatchObject({ field: 'notice', location: 'data[10]' });
    expect(page.skipped[0]!.message).toMatch(
      /^too long: 2,9\d\d,\d{3} characters, at most 1,000,000$/,
    );
    expect(typeof page.skipped[0]!.id).toBe('number');
  });

  it('caps each text field: short texts at 1,000 characters, bodies at 1,000,000', async () => {
    expect(TEXT_LIMITS).toEqual({ text: 1_000, lower: 1_000, longText: 1_000_000 });
    sim.control.injectFault({
      kind: 'large-body',
      bytes: 100_000,
      path: '/ip/notices',
      field: 'subject',
    });
    sim.control.injectFault({ kind: 'large-body', bytes: 2 * MB, path: '/ip/capacity' });
    const notices = await client().notices();
    expect(notices.skipped.map((s) => s.field)).toEqual(['subject']);
    expect(notices.data).toHaveLength(19);
    const capacity = await client().capacity('transco');
    expect(capacity.skipped.map((s) => s.field)).toEqual(['reason']);
    expect(capacity.data.locations.length).toBeGreaterThan(0);
  });

  it('is skipped when nested 100,000 levels deep, with a short message', async () => {
    sim.control.injectFault({
      kind: 'deep-record',
      depth: 100_000,
      path: '/ip/notices',
      field: 'subject',
    });
    const page = await client().notices();
    expect(page.data).toHaveLength(19);
    expect(page.skipped).toHaveLength(1);
    expect(page.skipped[0]!.field).toBe('subject');
    expect(page.skipped[0]!.message).toBe(`expected text, got ${'['.repeat(40)}…`);
  });

  it('survives deep nesting in the envelope and in pipeline and capacity records', async () => {
    sim.control.injectFault({ kind: 'deep-record', depth: 100_000, path: '/ip/pipelines' });
    sim.control.injectFault({ kind: 'deep-record', depth: 100_000, path: '/ip/capacity' });
    expect((await client().pipelines()).skipped.map((s) => s.field)).toEqual(['name']);
    expect((await client().capacity('transco')).skipped.map((s) => s.field)).toEqual(['reason']);
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const fake = await startScriptedApi(() => ({
      body: `{"status":"success","messages":[${deep}, "${'m'.repeat(5000)}"],"meta":{},"data":{"name":"x"}}`,
    }));
    fakes.push(fake);
    const seen: string[] = [];
    const api = client({ onMessage: (m) => seen.push(m) }, fake.url);
    expect((await api.hello()).data).toEqual({ name: 'x' });
    expect(seen.map((m) => m.length)).toEqual([TEXT_LIMITS.text + 1, TEXT_LIMITS.text + 1]);
  });
});
