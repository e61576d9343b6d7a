/**
 * An API that sends more than any page needs, or values no page should hold: the client
 * reads no further than its limit, fails that request with a coded error, and loses only
 * the record at fault when one record is too large or too deep.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { type ClientOptions, PipelineApiClient } from '../../src/upstream/client.js';
import { BodyTooLargeError, UpstreamErrorCode } from '../../src/upstream/errors.js';
import { TEXT_LIMITS } from '../../src/upstream/schemas.js';
import { chunks, type ScriptedApi, startScriptedApi } from '../fakes/scripted-api.js';
import { InstantClock, ManualClock } from '../support/clock.js';

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

describe('the response body limit', () => {
  it('stops reading a streamed body at the limit and fails that request, once', async () => {
    // 200 MB announced by nothing: chunked, as a server streaming a huge page sends it.
    const fake = await startScriptedApi(() => ({
      stream: chunks(
        '{"status":"success","messages":[],"meta":{},"data":[{"notice":"',
        64_000,
        3125,
      ),
    }));
    fakes.push(fake);
    const api = client({ maxBodyBytes: 2 * MB }, fake.url);
    const error = await api.notices().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyTooLargeError);
    expect(error).toMatchObject({
      code: UpstreamErrorCode.BodyTooLarge,
      retryable: false,
      limitBytes: 2 * MB,
    });
    expect((error as Error).message).toBe(
      'response body is larger than the 2 MB pipewatch reads (PIPEWATCH_API_MAX_BODY) (GET /ip/notices?page=1 on ' +
        `${new URL(fake.url).host})`,
    );
    await expect
      .poll(() => fake.requests[0]?.finished === false && fake.requests[0].sent)
      .toBeTruthy();
    // The connection is dropped at the limit: the server could not send much more than it.
    expect(fake.requests[0]!.sent).toBeLessThan(12 * MB);
    expect(fake.requests).toHaveLength(1);
    expect(api.stats).toMatchObject({ requests: 1, retries: 0, failures: 1 });
  });

  it('refuses a body whose Content-Length is over the limit without reading it', async () => {
    const fake = await startScriptedApi(() => ({
      headers: { 'content-length': String(200 * MB) },
      stream: chunks('{"status":"success","data":["', 64_000, 3125, '"]}'),
    }));
    fakes.push(fake);
    const error = await client({ maxBodyBytes: 2 * MB }, fake.url)
      .pipelines()
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /^response body of 200 MB is larger than the 2 MB pipewatch reads/,
    );
    expect(fake.requests[0]!.finished).toBe(false);
  });

  it('reads a body up to the limit, and the simulator streams a page of any size', async () => {
    sim.control.injectFault({ kind: 'large-body', bytes: 3 * MB, path: '/ip/notices', count: 2 });
    const error = await client({ maxBodyBytes: 2 * MB })
      .notices()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyTooLargeError);
    const page = await client({ maxBodyBytes: 4 * MB }).notices();
    expect(page.rawCount).toBe(20);
    expect(page.data).toHaveLength(19);
  });
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

describe('timeouts', () => {
  it('longer than a timer holds do not time every request out at once', async () => {
    const month = 30 * 86_400_000;
    const api = client({
      timeouts: { connectMs: month, headersMs: month, bodyMs: month, totalMs: 2 * month },
    });
    expect((await api.hello()).data).toEqual({ name: 'World' });
  });
});
