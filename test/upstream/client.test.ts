import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { type ClientOptions, PipelineApiClient } from '../../src/upstream/client.js';
import {
  AuthenticationError,
  NotFoundError,
  RateLimitedError,
  RequestRejectedError,
  SchemaError,
  TimeoutError,
  UnavailableError,
  type UpstreamError,
} from '../../src/upstream/errors.js';
import { InstantClock, ManualClock } from '../support/clock.js';

const START = new Date('2026-11-20T15:00:00Z');
const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
const demo = simulatorDefaults.users.find((u) => u.plan === 'demo')!;

let sim: Simulator;
const clients: PipelineApiClient[] = [];

function client(options: Partial<ClientOptions> = {}): {
  api: PipelineApiClient;
  clock: InstantClock;
} {
  const clock = new InstantClock(START);
  const api = new PipelineApiClient({
    baseUrl: sim.url,
    user: premium.username,
    key: premium.key,
    clock,
    random: () => 1,
    rateLimit: { maxConcurrent: 4, minTimeMs: 0 },
    ...options,
  });
  clients.push(api);
  return { api, clock };
}

beforeAll(async () => {
  sim = await startSimulator({
    seed: 7,
    startAt: START,
    clock: new ManualClock(START),
    control: true,
  });
});
afterEach(async () => {
  sim.control.clearFaults();
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await sim.close();
});

describe('endpoints', () => {
  it('GET and POST /hello', async () => {
    const { api } = client();
    expect((await api.hello()).data).toEqual({ name: 'World' });
    expect((await api.hello('Scheduler & Co')).data).toEqual({ name: 'Scheduler & Co' });
  });

  it("the catalog, whose hashes are the SHA-256 of each endpoint's JSON", async () => {
    const { api } = client();
    const hashes = (await api.catalogHashes()).data;
    const tables = (await api.catalogTables()).data;
    const notices = (await api.catalogTable('notices')).data;
    const pipelines = (await api.catalogTable('pipelines')).data;
    expect(tables.map((t) => t.name)).toEqual(['notices', 'pipelines']);
    expect(notices.primary_key).toBe('ID');
    expect(notices.fields.map((f) => f.name)).toContain('RESPONSE_AT_LOCAL');
    expect(pipelines.fields.map((f) => f.name)).toContain('TIMEZONE_IDENTIFIER');
    const sha = (value: unknown) =>
      createHash('sha256').update(JSON.stringify(value)).digest('hex');
    // The normalised tables keep every field of the wire form, in order, so they hash alike.
    expect(hashes).toEqual({
      tables: sha(tables),
      notices: sha(notices),
      pipelines: sha(pipelines),
    });
  });

  it('/ip/pipelines', async () => {
    const { api } = client();
    const { data, meta } = await api.pipelines();
    expect(data.length).toBeGreaterThanOrEqual(20);
    expect(meta.total_results).toBe(data.length);
    expect(data.find((p) => p.slug === 'transco')).toMatchObject({
      name: expect.stringMatching(/Transco/),
      tsp_id: '007933021',
    });
  });

  it('/ip/notices: normalised notices, latest first, with pagination', async () => {
    const { api } = client();
    const page = await api.notices({ page: 2 });
    expect(page.data).toHaveLength(20);
    expect(page.pagination).toMatchObject({
      page_current: 2,
      per_page: 20,
      page_previous: 1,
      page_next: 3,
    });
    const posted = page.data.map((n) => n.posted_at!);
    expect([...posted].sort().reverse()).toEqual(posted);
    for (const n of page.data) {
      for (const field of [
        'posted_at',
        'effective_at',
        'end_at',
        'response_at',
        'service_created_at',
        'service_updated_at',
      ] as const) {
        expect(
          n[field] === null || /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(n[field]!),
          `${field} ${n[field]}`,
        ).toBe(true);
      }
    }
  });

  it('/ip/notices?pipeline= restricts to one pipeline', async () => {
    const { api } = client();
    const page = await api.notices({ pipeline: 'transco' });
    expect(page.data.length).toBeGreaterThan(0);
    expect(new Set(page.data.map((n) => n.pipeline_slug))).toEqual(new Set(['transco']));
  });

  it('/ip/capacity: numbers for every quantity, whichever form the wire used', async () => {
    const { api } = client();
    const slugs = ['transco', 'texas-eastern', 'northern-natural', 'tennessee', 'columbia', 'anr'];
    for (const slug of slugs) {
      const { data, meta } = await api.capacity(slug, { cycle: 'timely' });
      expect(data.cycle).toMatchObject({ pipeline_slug: slug, cycle: 'timely' });
      expect(meta.total_locations).toBe(data.locations.length);
      for (const l of data.locations) {
        for (const q of [l.dc, l.opc, l.tsq, l.oac]) expect(typeof q).toBe('number');
        expect(l.oac).toBe(Math.max(0, l.opc! - l.tsq!));
      }
    }
    const stratton = (await api.capacity('texas-eastern')).data.locations.find(
      (l) => l.identifier === '79999',
    );
    expect(stratton).toMatchObject({ location: 'STRATTON RIDGE', dc: 322000, zone: 'STX' });
  });

  it("a pipeline without capacity is NotFoundError with the API's message", async () => {
    const { api } = client();
    const error = await api.capacity('no-such-pipeline').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).apiMessages.join(' ')).not.toBe('');
    expect((error as NotFoundError).retryable).toBe(false);
  });

  it('sends HTTP Basic credentials and a pipewatch User-Agent', async () => {
    const { startScriptedApi, envelope } = await import('../fakes/scripted-api.js');
    const fake = await startScriptedApi(() => ({ body: envelope({ name: 'World' }) }));
    try {
      const api = new PipelineApiClient({ baseUrl: `${fake.url}/`, user: 'u', key: 'p' });
      clients.push(api);
      await api.hello();
      const [req] = fake.requests;
      expect(req?.url.pathname).toBe('/api/v1/hello');
      expect(req?.headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
      expect(req?.headers['user-agent']).toMatch(/^pipewatch\/\d+\.\d+\.\d+/);
    } finally {
      await fake.close();
    }
  });
});

describe('authentication', () => {
  it("a bad key is AuthenticationError carrying the API's message, not retried", async () => {
    const { api, clock } = client({ key: 'wrong' });
    const error = await api.notices().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
    expect((error as Error).message).toContain('The API user or key does not appear to be valid.');
    expect((error as Error).message).not.toContain('wrong');
    expect(clock.sleeps).toEqual([]);
  });

  it('no credentials on a private endpoint is AuthenticationError; public ones still answer', async () => {
    const { api } = client({ user: undefined, key: undefined });
    await expect(api.pipelines()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(api.catalogHashes()).resolves.toBeDefined();
    await expect(api.hello()).resolves.toBeDefined();
  });
});

describe('faults', () => {
  it('retries after HTTP 500 and succeeds', async () => {
    const { api, clock } = client();
    sim.control.injectFault({ kind: '500', count: 2, path: '/ip/pipelines' });
    const { data } = await api.pipelines();
    expect(data.length).toBeGreaterThan(0);
    expect(clock.sleeps).toHaveLength(2);
    expect(api.stats.retries).toBe(2);
  });

  it('waits exactly Retry-After after HTTP 429', async () => {
    const { api, clock } = client();
    sim.control.injectFault({ kind: '429', count: 1, retryAfter: 3, path: '/ip/notices' });
    await api.notices();
    expect(clock.sleeps).toEqual([3000]);
  });

  it("ends in RateLimitedError with the server's Retry-After when 429 persists", async () => {
    const { api } = client({ retry: { attempts: 3 } });
    sim.control.injectFault({ kind: '429', count: 10, retryAfter: 2, path: '/ip/notices' });
    const error = await api.notices().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(2000);
  });

  it('ends in UnavailableError after the attempts when 5xx persists', async () => {
    const { api } = client({ retry: { attempts: 3 } });
    sim.control.injectFault({ kind: '503', count: 10 });
    const error = await api.pipelines().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as UnavailableError).attempts).toBe(3);
    expect((error as UpstreamError).retryable).toBe(true);
  });

  it('times out a response that does not come, then retries', async () => {
    const { api, clock } = client({ timeouts: { headersMs: 150 } });
    sim.control.injectFault({ kind: 'delay', delayMs: 60_000, count: 1, path: '/ip/pipelines' });
    const { data } = await api.pipelines();
    expect(data.length).toBeGreaterThan(0);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('reports TimeoutError as the cause when every attempt times out', async () => {
    const { api } = client({ timeouts: { totalMs: 100 }, retry: { attempts: 2 } });
    sim.control.injectFault({ kind: 'delay', delayMs: 60_000, count: 2 });
    const error = await api.hello().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).cause).toBeInstanceOf(TimeoutError);
  });

  it('retries a body that is not valid JSON', async () => {
    const { api, clock } = client();
    sim.control.injectFault({ kind: 'malformed-json', count: 1, path: '/ip/notices' });
    const page = await api.notices();
    expect(page.data.length).toBe(20);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('retries a connection reset', async () => {
    const { api } = client();
    sim.control.injectFault({ kind: 'reset', count: 1 });
    await expect(api.hello()).resolves.toMatchObject({ data: { name: 'World' } });
  });

  it('skips one malformed notice and keeps the rest of the page', async () => {
    const { api } = client();
    const clean = await api.notices();
    sim.control.injectFault({ kind: 'broken-record', count: 1, path: '/ip/notices' });
    const page = await api.notices();
    expect(page.rawCount).toBe(20);
    expect(page.data).toHaveLength(19);
    expect(page.skipped).toHaveLength(1);
    const [issue] = page.skipped;
    expect(clean.data.map((n) => n.id)).toContain(issue!.id);
    expect(page.data.map((n) => n.id)).not.toContain(issue!.id);
    expect(issue!.field).not.toBe('');
    expect(api.stats.skippedRecords).toBe(1);
  });

  it('skips one malformed capacity location and keeps the others', async () => {
    const { api } = client();
    const clean = await api.capacity('transco', { cycle: 'timely' });
    sim.control.injectFault({ kind: 'broken-record', count: 1, path: '/ip/capacity' });
    const broken = await api.capacity('transco', { cycle: 'timely' });
    expect(broken.data.locations).toHaveLength(clean.data.locations.length - 1);
    expect(broken.skipped).toHaveLength(1);
  });

  it('a refused connection is retried, then UnavailableError', async () => {
    const { api } = client({ baseUrl: 'http://127.0.0.1:9', retry: { attempts: 2 } });
    const error = await api.hello().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message).toMatch(/network error/);
  });
});

describe('demo account', () => {
  it('5 per page, at most 3 pages, and its restriction message surfaced once', async () => {
    const seen: string[] = [];
    const { api } = client({ user: demo.username, key: demo.key, onMessage: (m) => seen.push(m) });
    const pages = [];
    for await (const page of api.noticePages()) pages.push(page);
    expect(pages.length).toBeLessThanOrEqual(3);
    expect(pages.every((p) => p.data.length <= 5)).toBe(true);
    expect(pages[0]?.messages.length).toBeGreaterThan(0);
    expect(seen).toHaveLength(1);
    expect(api.messages).toEqual(seen);
    const cutoff = new Date(START.getTime() - 30 * 86_400_000).toISOString();
    for (const n of pages.flatMap((p) => p.data)) expect(n.posted_at! < cutoff).toBe(true);
  });
});

describe('responses that break the spec', () => {
  async function against(body: unknown, status = 200) {
    const { startScriptedApi } = await import('../fakes/scripted-api.js');
    const fake = await startScriptedApi(() => ({ status, body }));
    const api = new PipelineApiClient({
      baseUrl: fake.url,
      clock: new InstantClock(START),
      retry: { attempts: 1 },
    });
    clients.push(api);
    return { api, close: () => fake.close() };
  }

  it('an error envelope about the key, even with HTTP 200, is AuthenticationError', async () => {
    const { api, close } = await against({
      status: 'error',
      messages: ['The API user or key does not appear to be valid.'],
      meta: {},
      data: {},
    });
    await expect(api.pipelines()).rejects.toBeInstanceOf(AuthenticationError);
    await close();
  });

  it('any other error envelope is RequestRejectedError with its messages', async () => {
    const { api, close } = await against({
      status: 'fail',
      messages: ['Unknown parameter.'],
      meta: {},
      data: {},
    });
    const error = await api.pipelines().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestRejectedError);
    expect((error as RequestRejectedError).apiMessages).toEqual(['Unknown parameter.']);
    await close();
  });

  it('JSON that is not an envelope is SchemaError', async () => {
    const { api, close } = await against([1, 2, 3]);
    const error = await api.hello().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaError);
    await close();
  });

  it('a capacity cycle without a gas day is SchemaError naming the field', async () => {
    const { api, close } = await against({
      status: 'success',
      messages: [],
      meta: {},
      data: { cycle: { id: 1, pipeline_id: 2, cycle: 'timely' }, locations: [] },
    });
    const error = await api.capacity('transco').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).field).toBe('data.cycle.gas_day');
    expect((error as Error).message).toMatch(/data\.cycle\.gas_day/);
    await close();
  });
});
