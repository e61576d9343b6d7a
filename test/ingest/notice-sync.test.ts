import { afterEach, describe, expect, it } from 'vitest';
import { type NoticeSyncOptions, syncNotices } from '../../src/ingest/notice-sync.js';
import { silentLogger } from '../../src/lib/logger.js';
import { PipelineApiClient } from '../../src/upstream/client.js';
import {
  AuthenticationError,
  RetryableUpstreamError,
  UnavailableError,
} from '../../src/upstream/errors.js';
import { envelope, startScriptedApi } from '../fakes/scripted-api.js';
import { type Harness, harness, syncOnce, testSyncOptions } from './harness.js';

const options = testSyncOptions;
let h: Harness;

afterEach(async () => {
  await h?.close();
});

function sync(extra: Partial<NoticeSyncOptions> = {}) {
  return syncOnce(h, { ...options, ...extra });
}

function recentPost(minutesAgo = 1): string {
  return new Date(h.sim.now().getTime() - minutesAgo * 60_000)
    .toISOString()
    .slice(0, 19)
    .replace('T', ' ');
}

describe('notice sync', () => {
  it('the first sync is a baseline: it stores up to its depth and emits nothing', async () => {
    h = await harness();
    const result = await sync();
    expect(result.baseline).toBe(true);
    expect(result.pages).toBe(5);
    expect(h.store.notices.count()).toBe(100);
    expect(h.events.notices).toEqual([]);
    expect(
      h.store.notices.get(result.new > 0 ? (await h.client.notices()).data[0]!.id : 0)?.baseline,
    ).toBe(true);
    const second = await sync();
    expect(second.baseline).toBe(false);
    expect(second.new).toBe(0);
    expect(h.events.notices).toEqual([]);
  });

  it('a baseline that fails part-way is still the baseline next time: nothing is emitted', async () => {
    h = await harness();
    let failPage3 = true;
    const fake = await startScriptedApi((req) => {
      const page = Number(req.url.searchParams.get('page') ?? '1');
      if (page === 3 && failPage3)
        return { status: 500, body: { status: 'error', messages: ['boom'], meta: {}, data: {} } };
      const data = Array.from({ length: 20 }, (_, i) => {
        const id = 10_000 - (page - 1) * 20 - i;
        const at = new Date(Date.parse('2026-11-20T14:00:00Z') - (10_000 - id) * 60_000)
          .toISOString()
          .slice(0, 19)
          .replace('T', ' ');
        return {
          id,
          pipeline_id: 1,
          pipeline_slug: 'transco',
          subject: `n${id}`,
          posted_at: at,
          service_created_at: at,
        };
      });
      return {
        body: envelope(page <= 5 ? data : [], { pagination: { total_pages: 5, per_page: 20 } }),
      };
    });
    const client = new PipelineApiClient({
      baseUrl: fake.url,
      retry: { attempts: 1 },
      rateLimit: { minTimeMs: 0 },
    });
    const run = () =>
      syncNotices(
        { client, store: h.async, clock: h.clock, logger: silentLogger, hooks: h.hooks },
        options,
      );
    try {
      await expect(run()).rejects.toThrow(/HTTP 500/);
      expect(h.store.notices.count()).toBe(40);
      failPage3 = false;
      const again = await run();
      expect(again.baseline).toBe(true);
      expect(h.store.notices.count()).toBe(100);
      expect(h.events.notices).toEqual([]);
    } finally {
      await client.close();
      await fake.close();
    }
  });

  it('the baseline stops at its age limit', async () => {
    h = await harness();
    const result = await sync({ baselinePages: 1000, baselineMaxAgeMs: 2 * 86_400_000 });
    expect(result.end).toBe('baseline-depth');
    const oldest = h.store.db.prepare('SELECT min(posted_at) AS t FROM notices').get() as {
      t: string;
    };
    expect(Date.parse(oldest.t)).toBeGreaterThan(h.sim.now().getTime() - 4 * 86_400_000);
  });

  it('one new notice gives exactly one event, and a steady sync costs few requests', async () => {
    h = await harness();
    await sync();
    const added = h.sim.control.addNotice({
      pipeline_slug: 'transco',
      subject: 'Capacity Constraint - Station 165',
      posted_at: recentPost(),
    });
    const result = await sync();
    expect(h.events.notices.map((e) => [e.change, e.notice.id])).toEqual([['new', added.id]]);
    expect(h.events.notices[0]!.tooOld).toBe(false);
    expect(result.requests).toBe(1);
    const quiet = await sync();
    expect(quiet.new + quiet.updated).toBe(0);
    expect(quiet.requests).toBe(1);
    expect(h.events.notices).toHaveLength(1);
  });

  it('an edited notice gives one updated event naming what changed, and keeps the history', async () => {
    h = await harness();
    const added = h.sim.control.addNotice({
      pipeline_slug: 'texas-eastern',
      subject: 'OFO',
      status: 'Initiate',
      posted_at: recentPost(5),
    });
    await sync();
    h.sim.control.updateNotice(added.id, { status: 'Terminate' });
    await sync();
    const updates = h.events.notices.filter((e) => e.change === 'updated');
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({
      version: 2,
      previous: { status: 'Initiate' },
      notice: { status: 'Terminate' },
    });
    expect(updates[0]!.changedFields).toEqual(
      expect.arrayContaining(['status', 'service_updated_at']),
    );
    expect(h.store.notices.history(added.id)).toHaveLength(1);
    expect(h.store.notices.get(added.id)?.version).toBe(2);
  });

  it('a restart repeats no event', async () => {
    h = await harness();
    await sync();
    h.sim.control.addNotice({ pipeline_slug: 'transco', subject: 'x', posted_at: recentPost() });
    await sync();
    expect(h.events.notices).toHaveLength(1);
    h.reopen();
    await sync();
    h.reopen();
    await sync({ minPages: 10 });
    expect(h.events.notices).toHaveLength(1);
  });

  it('notices posted between page fetches are not skipped, and none is emitted twice', async () => {
    h = await harness();
    await sync();
    const first = Array.from({ length: 30 }, (_, i) =>
      h.sim.control.addNotice({
        pipeline_slug: 'columbia',
        subject: `burst ${i}`,
        posted_at: recentPost(30 - i),
      }),
    );
    const during: number[] = [];
    const original = h.hooks.notices!;
    h.hooks.notices = async (events) => {
      await original(events);
      if (during.length === 0) {
        for (let i = 0; i < 7; i++)
          during.push(
            h.sim.control.addNotice({
              pipeline_slug: 'anr',
              subject: `late ${i}`,
              posted_at: recentPost(0),
            }).id,
          );
      }
    };
    await sync();
    await sync();
    const emitted = h.events.notices.map((e) => e.notice.id);
    expect(new Set(emitted).size).toBe(emitted.length);
    for (const id of [...first.map((n) => n.id), ...during]) expect(emitted).toContain(id);
  });

  it('a notice posted long ago is stored and flagged too old to alert', async () => {
    h = await harness();
    await sync();
    const old = h.sim.control.addNotice({
      pipeline_slug: 'transco',
      subject: 'late posting',
      posted_at: recentPost(3 * 24 * 60),
    });
    await sync({ deepScanEveryMs: 0, deepScanPages: 100 });
    const event = h.events.notices.find((e) => e.notice.id === old.id);
    expect(event?.tooOld).toBe(true);
  });

  it('with a pipeline restriction, only those pipelines emit', async () => {
    h = await harness();
    await sync();
    h.sim.control.addNotice({ pipeline_slug: 'transco', subject: 'a', posted_at: recentPost() });
    h.sim.control.addNotice({ pipeline_slug: 'anr', subject: 'b', posted_at: recentPost() });
    await sync({ pipelines: ['transco'] });
    expect(h.events.notices.map((e) => e.notice.pipeline_slug)).toEqual(['transco']);
  });

  it('walks a single restricted pipeline by itself when that costs fewer requests', async () => {
    h = await harness();
    await sync();
    await sync();
    for (let i = 0; i < 60; i++)
      h.sim.control.addNotice({
        pipeline_slug: 'anr',
        subject: `noise ${i}`,
        posted_at: recentPost(1),
      });
    await sync();
    h.sim.control.addNotice({
      pipeline_slug: 'iroquois',
      subject: 'wanted',
      posted_at: recentPost(),
    });
    const result = await sync({ pipelines: ['iroquois'] });
    expect(result.scope).toEqual(['iroquois']);
    expect(
      h.events.notices
        .filter((e) => e.notice.pipeline_slug === 'iroquois')
        .map((e) => e.notice.subject),
    ).toEqual(['wanted']);
  });

  it.each([
    ['500', { kind: '500' as const, count: 10 }],
    ['429', { kind: '429' as const, count: 10, retryAfter: 1 }],
    ['timeout', { kind: 'delay' as const, count: 10, delayMs: 60_000 }],
    ['malformed JSON', { kind: 'malformed-json' as const, count: 10 }],
  ])('a %s on page 2 keeps page 1, and the next sync recovers everything', async (_name, fault) => {
    h = await harness({ client: { retry: { attempts: 2 }, timeouts: { totalMs: 150 } } });
    await sync();
    const before = h.store.notices.count();
    const added = Array.from({ length: 25 }, (_, i) =>
      h.sim.control.addNotice({
        pipeline_slug: 'tennessee',
        subject: `n${i}`,
        posted_at: recentPost(26 - i),
      }),
    );
    const original = h.hooks.notices!;
    h.hooks.notices = async (events) => {
      await original(events);
      h.sim.control.injectFault({ ...fault, path: '/ip/notices' });
    };
    await expect(sync()).rejects.toBeInstanceOf(RetryableUpstreamError);
    const partial = h.store.notices.count() - before;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(25);
    expect(h.store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    h.sim.control.clearFaults();
    h.hooks.notices = original;
    await sync();
    const emitted = h.events.notices.map((e) => e.notice.id).sort();
    expect(emitted).toEqual(added.map((n) => n.id).sort());
  });

  it('a broken record is skipped, and the next sync stores it', async () => {
    h = await harness();
    await sync();
    const added = Array.from({ length: 3 }, (_, i) =>
      h.sim.control.addNotice({
        pipeline_slug: 'anr',
        subject: `b${i}`,
        posted_at: recentPost(3 - i),
      }),
    );
    h.sim.control.injectFault({ kind: 'broken-record', count: 1, path: '/ip/notices' });
    const first = await sync();
    expect(first.skipped).toBe(1);
    await sync();
    const emitted = h.events.notices.map((e) => e.notice.id);
    for (const n of added) expect(emitted).toContain(n.id);
    expect(new Set(emitted).size).toBe(emitted.length);
  });

  it('an authentication failure is thrown as such, with nothing stored', async () => {
    h = await harness({ client: { key: 'wrong' } });
    await expect(sync()).rejects.toBeInstanceOf(AuthenticationError);
    expect(h.store.notices.count()).toBe(0);
  });

  it('a hook that throws rolls its page back; the next sync emits it again', async () => {
    h = await harness();
    await sync();
    const added = h.sim.control.addNotice({
      pipeline_slug: 'transco',
      subject: 'x',
      posted_at: recentPost(),
    });
    const original = h.hooks.notices!;
    h.hooks.notices = () => {
      throw new Error('downstream failed');
    };
    await expect(sync()).rejects.toThrow('downstream failed');
    expect(h.store.notices.get(added.id)).toBeUndefined();
    h.hooks.notices = original;
    await sync();
    expect(h.events.notices.map((e) => e.notice.id)).toEqual([added.id]);
  });

  it('gives up on an unreachable API with a retryable error', async () => {
    h = await harness({ client: { retry: { attempts: 2 } } });
    h.sim.control.injectFault({ kind: '503', count: 10 });
    await expect(sync()).rejects.toBeInstanceOf(UnavailableError);
  });
});
