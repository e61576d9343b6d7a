/**
 * Stored notices behave the same on SQLite and on PostgreSQL: classified as new, updated
 * or unchanged, each version and the history of changes read back whole, back from a
 * tombstone or a pruned text as SQLite brings them back, their words gathered, and found
 * by identifier, by supersession, by time.
 */
import { describe, expect, it } from 'vitest';
import { NoticeStore, noticeHash, type StoredNotice } from '../../../src/store/notices.js';
import { PgNoticeStore } from '../../../src/store/postgres/notices.js';
import { on } from '../../../src/store/postgres/queryable.js';
import type { Notice } from '../../../src/upstream/schemas.js';
import { makeNotice } from '../../fakes/notice.js';
import { insertRow, type Opened, STORES, sql } from '../../support/both-stores.js';

const SEEN = '2026-11-20T15:00:00Z';
const LATER = '2026-11-20T16:00:00Z';

/** The notice store of `o`; `inserted` hears of each notice inserted. */
function notices(o: Opened, inserted: number[] = []) {
  return o.kind === 'sqlite'
    ? new NoticeStore(o.store.db, (n) => {
        inserted.push(n.id);
      })
    : new PgNoticeStore(on(o.pool), async (n) => {
        inserted.push(n.id);
      });
}

/** A stored notice's bookkeeping, as both stores keep it. */
const kept = (n: StoredNotice | undefined) =>
  n && {
    version: n.version,
    first_seen_at: n.first_seen_at,
    last_seen_at: n.last_seen_at,
    last_changed_at: n.last_changed_at,
    baseline: n.baseline,
    text_pruned_at: n.text_pruned_at,
    content_hash: n.content_hash,
  };

describe.each(STORES)('%s (postgres and sqlite alike)', (_, open) => {
  it('stores a new notice, then finds it unchanged, then updated with what changed', async () => {
    const o = await open();
    const inserted: number[] = [];
    const s = notices(o, inserted);
    const v1 = makeNotice({ notice: 'Limited.', html: '<p>Limited.</p>' });
    expect(await s.upsert(v1, SEEN, false)).toEqual({
      change: 'new',
      version: 1,
      changedFields: [],
      previous: undefined,
    });
    expect(inserted).toEqual([101]);
    expect(await s.upsert(v1, LATER, false)).toEqual({
      change: 'unchanged',
      version: 1,
      changedFields: [],
      previous: undefined,
    });
    const v2 = { ...v1, status: 'Terminate', notice: 'Lifted.', end_at: '2026-11-21T00:00:00Z' };
    expect(await s.upsert(v2, '2026-11-20T17:00:00Z', true)).toEqual({
      change: 'updated',
      version: 2,
      changedFields: ['status', 'notice', 'end_at'],
      previous: v1,
    });
    expect(inserted).toEqual([101]);
    const stored = await s.get(101);
    expect(stored).toEqual({
      ...v2,
      content_hash: noticeHash(v2),
      version: 2,
      first_seen_at: SEEN,
      last_seen_at: '2026-11-20T17:00:00Z',
      last_changed_at: '2026-11-20T17:00:00Z',
      baseline: false,
      text_pruned_at: null,
    });
    expect(await s.count()).toBe(1);
    expect(await s.get(102)).toBeUndefined();
    for (const id of [1e20, 1.5, Number.NaN]) expect(await s.get(id), String(id)).toBeUndefined();
  });

  it('gives any version back whole, and the history oldest first', async () => {
    const s = notices(await open());
    const v1 = makeNotice({ html: '<p>one</p>' });
    const v2 = { ...v1, subject: 'Second', posted_at: null };
    const v3 = { ...v2, notice: 'Third text.', mobile: 'm' };
    await s.upsert(v1, SEEN, true);
    await s.upsert(v2, '2026-11-20T15:10:00Z', false);
    await s.upsert(v3, '2026-11-20T15:20:00Z', false);
    expect(await s.at(101, 1)).toEqual(v1);
    expect(await s.at(101, 2)).toEqual(v2);
    expect(await s.at(101, 3)).toEqual(v3);
    expect(await s.at(102, 1)).toBeUndefined();
    expect(await s.history(101)).toEqual([
      {
        version: 1,
        changed_at: '2026-11-20T15:10:00Z',
        changed_fields: ['subject', 'posted_at'],
        previous: v1,
      },
      {
        version: 2,
        changed_at: '2026-11-20T15:20:00Z',
        changed_fields: ['notice', 'mobile'],
        previous: v2,
      },
    ]);
    expect(await s.history(102)).toEqual([]);
    expect((await s.get(101))?.baseline).toBe(true);
  });

  it('says a version whose history was pruned lost its text, keeping every other field', async () => {
    const o = await open();
    const s = notices(o);
    const v1 = makeNotice({ url: 'https://example.test/n/101' });
    await s.upsert(v1, SEEN, false);
    await s.upsert({ ...v1, subject: 'Two' }, LATER, false);
    await sql(o, 'DELETE FROM notice_history');
    const text =
      '[text pruned 2026-11-20 by PIPEWATCH_RETENTION; the pipeline shows it at https://example.test/n/101]';
    expect(await s.at(101, 1)).toEqual({
      ...v1,
      subject: 'Two',
      notice: text,
      html: text,
      mobile: text,
    });
  });

  it('brings a pruned text back when the notice is seen again unchanged, still not new', async () => {
    const o = await open();
    const s = notices(o);
    const v1 = makeNotice();
    await s.upsert(v1, SEEN, false);
    await sql(o, 'UPDATE notices SET body = NULL, pruned_at = ? WHERE id = 101', [
      '2026-12-20T00:00:00Z',
    ]);
    expect((await s.metaOf([101])).get(101)).toEqual({
      content_hash: noticeHash(v1),
      version: 1,
      pruned_at: '2026-12-20T00:00:00Z',
    });
    const pruned = await s.get(101);
    expect(pruned?.notice).toBe('[text pruned 2026-12-20 by PIPEWATCH_RETENTION]');
    expect(pruned?.text_pruned_at).toBe('2026-12-20T00:00:00Z');
    expect((await s.upsert(v1, LATER, false)).change).toBe('unchanged');
    expect(await s.get(101)).toMatchObject({ ...v1, text_pruned_at: null, last_seen_at: LATER });
    // Pruned and then changed: every text counts as changed, no earlier text kept.
    await sql(o, 'UPDATE notices SET body = NULL, pruned_at = ? WHERE id = 101', [
      '2026-12-21T00:00:00Z',
    ]);
    const v2 = { ...v1, status: 'Terminate' };
    const result = await s.upsert(v2, LATER, false);
    expect(result.changedFields).toEqual(['status', 'notice', 'html', 'mobile']);
    expect(await s.get(101)).toMatchObject({ ...v2, text_pruned_at: null, version: 2 });
  });

  it('brings a notice back from its tombstone at its version, or the next when it changed', async () => {
    const o = await open();
    const inserted: number[] = [];
    const s = notices(o, inserted);
    const same = makeNotice({ id: 201 });
    const changed = makeNotice({ id: 202 });
    for (const [n, version] of [
      [same, 3],
      [changed, 5],
    ] as const)
      await insertRow(o, 'notice_tombstones', {
        id: n.id,
        content_hash: Buffer.from(noticeHash(n), 'hex'),
        version,
      });
    const metas = await s.metaOf([201, 202, 203, 201]);
    expect(metas).toEqual(
      new Map([
        [201, { content_hash: noticeHash(same), version: 3, pruned_at: null, tombstone: true }],
        [202, { content_hash: noticeHash(changed), version: 5, pruned_at: null, tombstone: true }],
      ]),
    );
    expect(await s.wasPruned(201)).toBe(true);
    expect(await s.wasPruned(203)).toBe(false);
    expect(await s.upsert(same, SEEN, false, metas.get(201))).toMatchObject({
      change: 'unchanged',
      version: 3,
    });
    expect(await s.upsert({ ...changed, subject: 'Moved' }, SEEN, false)).toMatchObject({
      change: 'updated',
      version: 6,
      changedFields: [],
    });
    expect(inserted).toEqual([201, 202]);
    expect(await s.wasPruned(201)).toBe(false);
    expect(await sql(o, 'SELECT id FROM notice_tombstones')).toEqual([]);
    expect(kept(await s.get(202))).toMatchObject({ version: 6, first_seen_at: SEEN });
    expect(await s.metaOf([1e20, 1.5])).toEqual(new Map());
  });

  it('takes the meta given, and a notice met twice in a page as it was then', async () => {
    const s = notices(await open());
    const n = makeNotice();
    const before = await s.metaOf([101]);
    expect(before.size).toBe(0);
    expect((await s.upsert(n, SEEN, false, before.get(101) ?? null)).change).toBe('new');
    const again = { ...n, subject: 'Again' };
    expect((await s.upsert(again, SEEN, false)).change).toBe('updated');
    expect((await s.metaOf([101])).get(101)).toEqual({
      content_hash: noticeHash(again),
      version: 2,
      pruned_at: null,
    });
  });

  it('gathers the words of types, categories and statuses, lower-cased as SQLite does, blanks left out', async () => {
    const s = notices(await open());
    const n = (id: number, type: string, category: string, status: string) =>
      makeNotice({ id, type, category, status });
    await s.upsert(n(1, 'Capacity Constraint', 'CRITICAL', 'Initiate'), SEEN, false);
    await s.upsert(n(2, 'capacity constraint', 'Critical', ''), SEEN, true);
    await s.upsert(n(3, 'ÉTAT Maintenance', '', 'INITIATE'), SEEN, false);
    await s.upsert(n(3, 'ÉTAT Maintenance', 'Non-Critical', 'Terminate'), SEEN, false);
    expect(await s.vocabulary()).toEqual({
      types: ['capacity constraint', 'État maintenance'],
      categories: ['critical', 'non-critical'],
      statuses: ['initiate', 'terminate'],
    });
  });

  it('finds notices by identifier, letter case aside, of one pipeline or all, latest first', async () => {
    const s = notices(await open());
    const put = (
      id: number,
      identifier: string,
      posted_at: string | null,
      pipeline_slug = 'transco',
    ) => s.upsert(makeNotice({ id, identifier, posted_at, pipeline_slug }), SEEN, false);
    await put(1, '26-0412a', '2026-11-20T10:00:00Z');
    await put(2, '26-0412A', '2026-11-20T12:00:00Z');
    await put(3, '26-0412a', null);
    await put(4, '26-0412a', '2026-11-20T11:00:00Z', 'tennessee');
    await put(5, '26-0412á', '2026-11-20T11:00:00Z');
    const ids = async (...args: [string, string?, number?]) =>
      (await s.withIdentifier(...args)).map((n) => n.id);
    expect(await ids('26-0412A')).toEqual([2, 4, 1, 3]);
    expect(await ids('26-0412a', 'transco')).toEqual([2, 1, 3]);
    expect(await ids('26-0412a', undefined, 2)).toEqual([2, 4]);
    expect(await ids('26-0412Á')).toEqual([]);
    expect((await s.withIdentifier('26-0412A', 'tennessee'))[0]).toEqual({
      id: 4,
      pipeline_slug: 'tennessee',
      identifier: '26-0412a',
      subject: makeNotice().subject,
      posted_at: '2026-11-20T11:00:00Z',
    });
  });

  it('finds the notice superseded among the latest of the window, by pipeline and identifier', async () => {
    const s = notices(await open());
    const at = (h: number) => `2026-11-20T${String(h).padStart(2, '0')}:00:00Z`;
    const put = (id: number, identifier: string, h: number, pipeline_slug = 'transco') =>
      s.upsert(makeNotice({ id, identifier, posted_at: at(h), pipeline_slug }), SEEN, false);
    await put(1, '26-0100', 1);
    await put(2, '26-0100', 2);
    await put(3, '26-0200', 3);
    await put(4, '26-0200', 4);
    await put(5, '26-0100', 5, 'tennessee');
    expect(await s.supersededBy('transco', '26-0100', 99, at(6))).toBe(2);
    expect(await s.supersededBy('transco', '26-0100', 2, at(6))).toBe(1);
    expect(await s.supersededBy('transco', '26-0100', 99, at(1))).toBe(1);
    expect(await s.supersededBy('transco', '26-0100', 99, null)).toBe(2);
    expect(await s.supersededBy('tennessee', '26-0100', 5, at(6))).toBeUndefined();
    // The window: the 3 posted last up to 06:00 are 5, 4 and 3; 2 is out of it.
    expect(await s.supersededBy('transco', '26-0100', 99, at(6), 3)).toBeUndefined();
    expect(await s.supersededBy('transco', '26-0100', 99, at(6), 4)).toBe(2);
    // No window is taken as the latest notice alone, as SQLite's negative OFFSET is 0.
    expect(await s.supersededBy('transco', '26-0100', 99, at(6), 0)).toBeUndefined();
    expect(await s.supersededBy('transco', '26-0100', 1.5, at(6))).toBe(2);
  });

  it('gives the fields seen since a time, with the pipelines of capacity cycles seen then', async () => {
    const o = await open();
    const s = notices(o);
    await s.upsert(makeNotice({ id: 1, type: 'OFO' }), SEEN, false);
    await s.upsert(makeNotice({ id: 2, type: 'OFO' }), SEEN, false);
    await s.upsert(makeNotice({ id: 3, type: 'Maintenance', status: 'Terminate' }), LATER, false);
    await s.upsert(makeNotice({ id: 4, pipeline_slug: 'old' }), '2026-11-19T00:00:00Z', false);
    await insertRow(o, 'capacity_cycles', {
      id: 1,
      pipeline_id: 9,
      pipeline_slug: 'algonquin',
      pipeline_name: 'Algonquin',
      identifier: 'x',
      cycle: 'Timely',
      gas_day: '2026-11-21',
      location_count: 0,
      content_hash: 'h',
      first_seen_at: SEEN,
      last_seen_at: SEEN,
    });
    const fields = await s.fieldsSeenSince(SEEN);
    expect([...fields].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      { pipeline: 'algonquin', type: '', category: '', status: '' },
      { pipeline: 'transco', type: 'Maintenance', category: 'Critical', status: 'Terminate' },
      { pipeline: 'transco', type: 'OFO', category: 'Critical', status: 'Initiate' },
    ]);
  });

  it('reads the refresh observations of the newest notices since a time, newest first', async () => {
    const s = notices(await open());
    // Found new: when first seen counts; stored by the baseline: when created counts.
    await s.upsert(makeNotice({ id: 1, service_created_at: '2026-11-20T14:58:00Z' }), SEEN, false);
    await s.upsert(makeNotice({ id: 2, service_created_at: '2026-11-20T14:00:00Z' }), SEEN, true);
    await s.upsert(makeNotice({ id: 3, service_created_at: '2026-11-20T15:10:00Z' }), SEEN, true);
    await s.upsert(makeNotice({ id: 4, service_created_at: null }), SEEN, false);
    await s.upsert(makeNotice({ id: 5, service_created_at: '2026-11-20T15:30:00Z' }), LATER, false);
    expect(await s.refreshObservations('2026-11-20T15:00:00Z')).toEqual([
      { createdAt: '2026-11-20T15:30:00Z', firstSeenAt: LATER, baseline: false },
      { createdAt: '2026-11-20T15:10:00Z', firstSeenAt: SEEN, baseline: true },
      { createdAt: '2026-11-20T14:58:00Z', firstSeenAt: SEEN, baseline: false },
    ]);
    // Only the newest `scan` notices are looked at.
    expect(await s.refreshObservations('2026-11-20T15:00:00Z', 2)).toEqual([
      { createdAt: '2026-11-20T15:30:00Z', firstSeenAt: LATER, baseline: false },
    ]);
  });

  it('hands each notice posted since a time to a visitor, latest first, past a page of them', async () => {
    const o = await open();
    const s = notices(o);
    // Enough notices for several of PostgreSQL's pages, many posted at one instant.
    const rows = Array.from({ length: 1_203 }, (_, i) => i + 1);
    await sql(
      o,
      `INSERT INTO notices (id, pipeline_id, pipeline_name, pipeline_slug, pipeline_url, subject, identifier,
         url, category, type, status, notice, html, mobile, posted_at, content_hash, first_seen_at,
         last_seen_at, last_changed_at)
       VALUES ${rows.map(() => "(?, 3, 'T', ?, '', 's', 'i', '', 'c', 't', 's', 'x', '', '', ?, 'h', 'a', 'a', 'a')").join(', ')}`,
      rows.flatMap((id) => [
        id,
        id % 3 === 0 ? 'tennessee' : 'transco',
        id % 2 === 0 ? '2026-11-20T12:00:00Z' : `2026-11-20T1${id % 10}:00:00Z`,
      ]),
    );
    await s.upsert(makeNotice({ id: 9_999, posted_at: null }), SEEN, false);
    const visited: StoredNotice[] = [];
    await s.visitPostedSince('2026-11-20T11:00:00Z', undefined, (n) => visited.push(n));
    const expected = rows
      .map((id) => ({
        id,
        posted: id % 2 === 0 ? '2026-11-20T12:00:00Z' : `2026-11-20T1${id % 10}:00:00Z`,
      }))
      .filter((r) => r.posted >= '2026-11-20T11:00:00Z')
      .sort((a, b) => (a.posted === b.posted ? b.id - a.id : a.posted < b.posted ? 1 : -1))
      .map((r) => r.id);
    expect(visited.map((n) => n.id)).toEqual(expected);
    expect(visited[0]?.notice).toBe('x');
    const ofTennessee: number[] = [];
    await s.visitPostedSince('2026-11-20T11:00:00Z', ['tennessee'], (n) => ofTennessee.push(n.id));
    expect(ofTennessee).toEqual(expected.filter((id) => id % 3 === 0));
    const none: number[] = [];
    await s.visitPostedSince('2026-11-20T00:00:00Z', [], (n) => none.push(n.id));
    expect(none).toEqual([]);
    expect((await s.idsPostedSince('2026-11-20T19:00:00Z')).sort((a, b) => a - b)).toEqual(
      rows.filter((id) => id % 2 === 1 && id % 10 === 9),
    );
  });

  it('gives the notices whose end falls in a span, by end', async () => {
    const s = notices(await open());
    const end = (id: number, end_at: string | null) =>
      s.upsert(makeNotice({ id, end_at }), SEEN, false);
    await end(1, '2026-11-20T12:00:00Z');
    await end(2, '2026-11-20T11:00:00Z');
    await end(3, '2026-11-20T10:00:00Z');
    await end(4, null);
    await end(5, '2026-11-20T11:00:00Z');
    const ended = await s.endedBetween('2026-11-20T10:00:00Z', '2026-11-20T12:00:00Z');
    expect(ended.map((n) => n.id)).toEqual([2, 5, 1]);
    expect(ended[0]).toMatchObject({
      ...makeNotice({ id: 2, end_at: '2026-11-20T11:00:00Z' }),
      version: 1,
    });
  });

  it('stores hostile text as sent, but U+0000 in a column, which PostgreSQL text cannot hold', async () => {
    const o = await open();
    const s = notices(o);
    const hostile: Notice = makeNotice({
      subject: `\u001b[31mred\u0007 \u0000 ${'x'.repeat(100_000)}`,
      notice: 'a\u0000b \\u0000 \u{1F525}',
      type: 'Ty\u0000pe',
    });
    await s.upsert(hostile, SEEN, false);
    const back = await s.get(101);
    const nul = o.kind === 'sqlite' ? '\u0000' : '\uFFFD';
    expect(back?.subject).toBe(hostile.subject.replace('\u0000', nul));
    // The texts are in the body, bytes: kept exactly on both.
    expect(back?.notice).toBe(hostile.notice);
    // The hash is of what the API sent, so the notice is unchanged when sent again.
    expect((await s.upsert(hostile, LATER, false)).change).toBe('unchanged');
    expect((await s.vocabulary()).types).toEqual([`ty${nul}pe`]);
  });
});

describe('postgres', () => {
  it('stores a notice in as few statements as the file says: new 1, unchanged 1, updated 2', async () => {
    const o = await STORES[1]![1]();
    if (o.kind !== 'postgres') throw new Error('expected the postgres store');
    let statements = 0;
    const counted = on({
      query: (text, values) => {
        statements++;
        return o.pool.query(text, values);
      },
    });
    const s = new PgNoticeStore(counted);
    const cost = async (fn: () => Promise<unknown>) => {
      statements = 0;
      await fn();
      return statements;
    };
    const page = [makeNotice({ id: 1 }), makeNotice({ id: 2 })];
    const metas = await s.metaOf(page.map((n) => n.id));
    expect(await cost(() => s.upsert(page[0]!, SEEN, false, metas.get(1) ?? null))).toBe(1);
    expect(await cost(() => s.upsert(page[1]!, SEEN, false, metas.get(2) ?? null))).toBe(1);
    const known = await s.metaOf([1, 2]);
    expect(await cost(() => s.upsert(page[0]!, LATER, false, known.get(1)))).toBe(1);
    expect(
      await cost(() => s.upsert({ ...page[1]!, status: 'Terminate' }, LATER, false, known.get(2))),
    ).toBe(2);
    // Without the meta, one more to look it up.
    expect(await cost(() => s.upsert(page[0]!, LATER, false))).toBe(2);
    expect(await cost(() => s.at(2, 1))).toBe(1);
  });
});
