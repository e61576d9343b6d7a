/**
 * One page through the ingest step: its notices are looked up together, and a page that
 * holds a notice twice (the API's pages shift while they are read) stores it once, the
 * second copy judged against the first.
 */
import { describe, expect, it } from 'vitest';
import type { IngestHooks } from '../../src/ingest/events.js';
import { ingestNoticePage } from '../../src/ingest/notice-sync.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { makeNotice } from '../fakes/notice.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-page-');

function ingest(notices: Notice[], hooks?: IngestHooks) {
  return ingestNoticePage(asyncStoreOf(temp.store), notices, {
    seenAt: '2026-11-20T15:00:00Z',
    baseline: false,
    alertableAfter: '2026-11-19T15:00:00Z',
    pipelines: new Set(),
    hooks,
  });
}

const first = makeNotice({ id: 501, subject: 'Station 85 compressor outage' });
const other = makeNotice({ id: 502, subject: 'Zone 6 maintenance' });

describe('a page of notices', () => {
  it('stores a notice it holds twice once, the same copy as nothing new', async () => {
    const page = await ingest([first, other, first]);
    expect(page.counts).toEqual({ new: 2, updated: 0, unchanged: 1 });
    expect(page.events.map((e) => [e.notice.id, e.change])).toEqual([
      [501, 'new'],
      [502, 'new'],
    ]);
    expect(temp.store.notices.count()).toBe(2);
  });

  it('judges the second copy of a notice against the first when the two differ', async () => {
    const edited = { ...first, subject: 'Station 85 compressor outage extended' };
    const page = await ingest([first, edited]);
    expect(page.counts).toEqual({ new: 1, updated: 1, unchanged: 0 });
    expect(page.events.map((e) => [e.change, e.version])).toEqual([
      ['new', 1],
      ['updated', 2],
    ]);
    expect(temp.store.notices.get(501)?.subject).toBe('Station 85 compressor outage extended');
  });

  it('tells stored notices from new ones in one page, and what changed', async () => {
    await ingest([first, other]);
    const edited = { ...other, status: 'Terminate' };
    const third = makeNotice({ id: 503 });
    const page = await ingest([third, edited, first]);
    expect(page.counts).toEqual({ new: 1, updated: 1, unchanged: 1 });
    expect(page.events.map((e) => [e.notice.id, e.change, e.changedFields])).toEqual([
      [503, 'new', []],
      [502, 'updated', ['status']],
    ]);
  });

  it('reads what is stored of a page in one query, and nothing of notices not stored', async () => {
    await ingest([first]);
    const meta = temp.store.notices.metaOf([501, 999]);
    expect([...meta.keys()]).toEqual([501]);
    expect(meta.get(501)).toMatchObject({ version: 1, pruned_at: null });
    expect(meta.get(501)?.content_hash).toMatch(/^[0-9a-f]{32}$/);
  });

  it('awaits each hook in the transaction of the page: what a failing hook wrote goes with it', async () => {
    const store = asyncStoreOf(temp.store);
    const hooks: IngestHooks = {
      notices: async (events) => {
        for (const e of events)
          await store.audit.record({
            at: e.seenAt,
            rule: 'page',
            event: `notice-${e.change}`,
            subject: `notice:${e.notice.id}`,
            notice_id: e.notice.id,
            decision: 'alert',
            reason: 'decided',
          });
        if (events.some((e) => e.notice.id === other.id)) throw new Error('the decision failed');
      },
    };
    await expect(ingest([first, other], hooks)).rejects.toThrow('the decision failed');
    expect(temp.store.notices.count()).toBe(0);
    expect(temp.store.audit.forNotice(first.id)).toEqual([]);
    expect(temp.store.audit.forNotice(other.id)).toEqual([]);

    await ingest([first], hooks);
    expect(temp.store.audit.forNotice(first.id)).toHaveLength(1);
  });
});
