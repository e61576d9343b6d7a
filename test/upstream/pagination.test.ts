import { afterEach, describe, expect, it } from 'vitest';
import { simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { PipelineApiClient } from '../../src/upstream/client.js';
import { SchemaError } from '../../src/upstream/errors.js';
import type { WalkEnd } from '../../src/upstream/pagination.js';
import { envelope, type ScriptedRequest, startScriptedApi } from '../fakes/scripted-api.js';
import { ManualClock } from '../support/clock.js';

const START = new Date('2026-11-20T15:00:00Z');
const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

function notice(id: number) {
  return {
    id,
    pipeline_id: 1,
    pipeline_slug: 'transco',
    subject: `n${id}`,
    posted_at: '2026-11-20 10:00:00',
  };
}

/** Walks every page of a scripted server and reports what happened. */
async function walk(handler: (req: ScriptedRequest) => unknown, maxPages?: number) {
  const fake = await startScriptedApi((req) => ({ body: handler(req) }));
  const api = new PipelineApiClient({ baseUrl: fake.url, rateLimit: { minTimeMs: 0 } });
  cleanup.push(
    () => fake.close(),
    () => api.close(),
  );
  const ids: number[] = [];
  const pages = api.noticePages(maxPages === undefined ? {} : { maxPages });
  let end: WalkEnd | undefined;
  for (;;) {
    const step = await pages.next();
    if (step.done) {
      end = step.value;
      break;
    }
    ids.push(...step.value.data.map((n) => n.id));
  }
  return { ids, end, requests: fake.requests.length };
}

const pageOf = (req: ScriptedRequest) => Number(req.url.searchParams.get('page') ?? '1');

describe('notice walk termination', () => {
  it('stops at total_pages even when page_next keeps pointing on', async () => {
    const result = await walk((req) =>
      envelope([notice(pageOf(req))], {
        pagination: { total_pages: 3, page_next: pageOf(req) + 1, page_current: pageOf(req) },
      }),
    );
    expect(result).toEqual({ ids: [1, 2, 3], end: 'last-page', requests: 3 });
  });

  it('stops when page_next does not move on, even when total_pages is missing', async () => {
    const result = await walk((req) =>
      envelope([notice(pageOf(req))], { pagination: { page_next: Math.min(pageOf(req) + 1, 2) } }),
    );
    expect(result.ids).toEqual([1, 2]);
    expect(result.end).toBe('last-page');
  });

  it('stops at an empty page when the pagination claims there is more', async () => {
    const result = await walk((req) =>
      envelope(pageOf(req) <= 2 ? [notice(pageOf(req))] : [], {
        pagination: { total_pages: 999, page_next: pageOf(req) + 1 },
      }),
    );
    expect(result).toEqual({ ids: [1, 2], end: 'empty-page', requests: 3 });
  });

  it('stops at a server that ignores the page parameter, without yielding the repeat', async () => {
    const result = await walk(() =>
      envelope([notice(1), notice(2)], { pagination: { total_pages: 50 } }),
    );
    expect(result).toEqual({ ids: [1, 2], end: 'repeated-page', requests: 2 });
  });

  it('stops when the server answers an earlier page than asked for', async () => {
    const result = await walk((req) =>
      envelope([notice(Math.min(pageOf(req), 2) * 10 + pageOf(req))], {
        pagination: { page_current: Math.min(pageOf(req), 2) },
      }),
    );
    expect(result.ids).toEqual([11, 22]);
    expect(result.end).toBe('repeated-page');
  });

  it('stops at a short page', async () => {
    const result = await walk((req) =>
      envelope(pageOf(req) === 1 ? [notice(1), notice(2)] : [notice(3)], {
        pagination: { per_page: 2 },
      }),
    );
    expect(result).toEqual({ ids: [1, 2, 3], end: 'last-page', requests: 2 });
  });

  it('stops at the page bound on an endless feed', async () => {
    const result = await walk(
      (req) => envelope([notice(pageOf(req))], { pagination: { total_pages: 1e9 } }),
      7,
    );
    expect(result).toEqual({ ids: [1, 2, 3, 4, 5, 6, 7], end: 'page-bound', requests: 7 });
  });

  it('stops on a page of garbage pagination and no items', async () => {
    const result = await walk(() => envelope([], 'not an object'));
    expect(result).toEqual({ ids: [], end: 'empty-page', requests: 1 });
  });

  it('starts at the first page asked for and counts the page bound from there', async () => {
    const fake = await startScriptedApi((req) => ({ body: envelope([notice(pageOf(req))]) }));
    const api = new PipelineApiClient({ baseUrl: fake.url, rateLimit: { minTimeMs: 0 } });
    cleanup.push(
      () => fake.close(),
      () => api.close(),
    );
    const ids: number[] = [];
    for await (const n of api.allNotices({ firstPage: 4, maxPages: 2 })) ids.push(n.id);
    expect(ids).toEqual([4, 5]);
    expect(api.lastWalkEnd).toBe('page-bound');
  });

  it('a page whose data is not an array is a SchemaError naming the field', async () => {
    const fake = await startScriptedApi(() => ({ body: envelope({ oops: true }) }));
    const api = new PipelineApiClient({ baseUrl: fake.url });
    cleanup.push(
      () => fake.close(),
      () => api.close(),
    );
    const error = await api.notices().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).field).toBe('data');
    expect((error as SchemaError).retryable).toBe(false);
  });
});

describe('against the simulator', () => {
  it.each(['absolute', 'path'] as const)(
    'walks every page of a pipeline with %s pagination URLs',
    async (urlStyle) => {
      const sim = await startSimulator({
        seed: 3,
        startAt: START,
        clock: new ManualClock(START),
        urlStyle,
      });
      const api = new PipelineApiClient({
        baseUrl: sim.url,
        user: premium.username,
        key: premium.key,
        rateLimit: { minTimeMs: 0 },
      });
      cleanup.push(
        () => sim.close(),
        () => api.close(),
      );
      const first = await api.notices({ pipeline: 'texas-eastern' });
      expect(first.pagination.url_next).toMatch(/^\/api\/v1\/ip\/notices\?/);
      expect(first.pagination.url_next).toContain('page=2');
      const ids: number[] = [];
      for await (const n of api.allNotices({ pipeline: 'texas-eastern' })) ids.push(n.id);
      expect(api.lastWalkEnd).toBe('last-page');
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(first.pagination.total_results);
    },
  );
});
