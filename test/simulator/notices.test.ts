import { beforeAll, describe, expect, it } from 'vitest';
import { allNotices, caller, type NoticeRow, type Reply, START, useSimulators } from './helpers.js';

const start = useSimulators();

interface Pagination {
  total_results: number;
  total_pages: number;
  page_previous: number;
  page_next: number;
  page_current: number;
  current_page: number;
  current_result: number;
  current_result_first: number;
  current_result_last: number;
  per_page: number;
  url_next: string;
  url_current: string;
  url_previous: string;
}

const pagination = (r: Reply) => r.json.meta.pagination as Pagination;
const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

const NOTICE_KEYS = [
  'id',
  'pipeline_id',
  'pipeline_name',
  'pipeline_slug',
  'pipeline_url',
  'subject',
  'identifier',
  'url',
  'category',
  'type',
  'status',
  'notice',
  'html',
  'mobile',
  'posted_at',
  'effective_at',
  'end_at',
  'response_at',
  'service_created_at',
  'service_updated_at',
];

describe('notice history', () => {
  let notices: NoticeRow[];
  beforeAll(async () => {
    const { call } = await start();
    notices = await allNotices(call);
  });

  it('serves every spec field with the spec types', () => {
    expect(notices.length).toBeGreaterThan(24 * 60);
    for (const n of notices) {
      expect(Object.keys(n)).toEqual(NOTICE_KEYS);
      expect(Number.isInteger(n.id)).toBe(true);
      expect(n.posted_at).toMatch(DATETIME);
      expect(n.service_created_at).toMatch(DATETIME);
      for (const key of ['effective_at', 'end_at', 'response_at']) {
        expect(n[key] === '' || DATETIME.test(n[key] as string)).toBe(true);
      }
      expect(n.posted_at < START.replace('T', ' ')).toBe(true);
    }
  });

  it('orders latest first: posted_at descending, then id descending', () => {
    for (let i = 1; i < notices.length; i++) {
      const a = notices[i - 1]!;
      const b = notices[i]!;
      expect(a.posted_at > b.posted_at || (a.posted_at === b.posted_at && a.id > b.id)).toBe(true);
    }
  });

  it('allocates ids in service_created_at order', () => {
    const byId = [...notices].sort((a, b) => a.id - b.id);
    for (let i = 1; i < byId.length; i++) {
      expect(byId[i]!.service_created_at >= byId[i - 1]!.service_created_at).toBe(true);
    }
  });

  it('looks like real postings: mixed labels, chains, placeholders and deadlines', () => {
    const values = (key: string) => new Set(notices.map((n) => n[key] as string));
    const categories = values('category');
    for (const c of ['Critical', 'CRITICAL', 'Non-Critical', 'critical'])
      expect(categories).toContain(c);
    const statuses = values('status');
    for (const s of ['Initiate', 'INITIATE', 'Supersede', 'SUPERSEDE', 'Terminate', '']) {
      expect(statuses).toContain(s);
    }
    const types = values('type');
    for (const t of ['Capacity Constraint', 'Force Maj', 'Maintenance', 'Operational Flow Order']) {
      expect(types).toContain(t);
    }
    const ends = values('end_at');
    expect(ends).toContain('');
    expect(ends).toContain('9000-12-31 00:00:00');
    expect(ends).toContain('2049-12-31 23:59:00');
    const now = START.replace('T', ' ').slice(0, 19);
    expect(notices.some((n) => (n.response_at as string) > now)).toBe(true);
    expect(notices.filter((n) => n.response_at === '').length).toBeGreaterThan(notices.length / 2);
    const superseding = notices.filter((n) => /supersede/i.test(n.status as string));
    expect(superseding.some((n) => /supersedes Notice ID \S/.test(n.notice as string))).toBe(true);
    expect(notices.some((n) => /^LIFTED: /.test(n.subject as string))).toBe(true);
    expect(notices.some((n) => n.service_updated_at !== n.service_created_at)).toBe(true);
  });

  it('repeats pipeline notice identifiers across pipelines', () => {
    const pipelinesById = new Map<string, Set<string>>();
    for (const n of notices) {
      const set = pipelinesById.get(n.identifier as string) ?? new Set();
      set.add(n.pipeline_slug);
      pipelinesById.set(n.identifier as string, set);
    }
    expect([...pipelinesById.values()].some((s) => s.size > 1)).toBe(true);
  });

  it('keeps html, mobile and plain text consistent and includes hostile bodies', () => {
    const sample = notices.find((n) => (n.html as string).includes('<table'))!;
    expect(sample.notice).not.toMatch(/<t[dr]>/);
    expect(sample.mobile).toContain('<table');
    expect(notices.some((n) => (n.html as string).includes('&amp;'))).toBe(true);
    const all = notices.map((n) => `${n.subject}\n${n.notice}\n${n.html}`).join('\n');
    for (const hostile of [
      '<script>alert(1)</script>',
      '@everyone',
      '<@U123ABC>',
      '<!channel>',
      '*bold* _x_ ~y~',
    ]) {
      expect(all).toContain(hostile);
    }
    expect(notices.some((n) => (n.notice as string).length > 10_000)).toBe(true);
  });
});

describe('pagination', () => {
  it('is consistent across pages and ends with page_next equal to the current page', async () => {
    const { sim, call } = await start();
    const first = await call('/api/v1/ip/notices');
    const p1 = pagination(first);
    expect(p1).toMatchObject({
      page_current: 1,
      current_page: 1,
      page_previous: 1,
      page_next: 2,
      per_page: 20,
    });
    expect(p1.total_pages).toBe(Math.ceil(p1.total_results / 20));
    expect(p1.url_current).toBe(`${sim.url}/api/v1/ip/notices?page=1`);
    expect(p1.url_next).toBe(`${sim.url}/api/v1/ip/notices?page=2`);
    expect(p1.url_previous).toBe(`${sim.url}/api/v1/ip/notices?page=1`);
    expect([p1.current_result, p1.current_result_first, p1.current_result_last]).toEqual([
      20, 1, 20,
    ]);

    const lastPage = p1.total_pages;
    const last = await call(`/api/v1/ip/notices?page=${lastPage}`);
    const pl = pagination(last);
    const onLast = p1.total_results - (lastPage - 1) * 20;
    expect(pl).toMatchObject({
      page_current: lastPage,
      page_next: lastPage,
      page_previous: lastPage - 1,
      current_result: onLast,
      current_result_first: (lastPage - 1) * 20 + 1,
      current_result_last: p1.total_results,
    });
    expect(pl.url_next).toBe(pl.url_current);
    expect((last.json.data as unknown[]).length).toBe(onLast);

    const beyond = await call(`/api/v1/ip/notices?page=${lastPage + 5}`);
    expect(beyond.status).toBe(200);
    expect(beyond.json.data).toEqual([]);
    expect(pagination(beyond)).toMatchObject({
      page_current: lastPage + 5,
      current_page: lastPage + 5,
      page_next: lastPage + 5,
      current_result: 0,
      current_result_first: 0,
      current_result_last: 0,
      total_pages: lastPage,
    });
  });

  it('filters by pipeline, keeps the filter in the page URLs, and knows no unknown slug', async () => {
    const { call, sim } = await start({ urlStyle: 'path' });
    const all = await allNotices(call, 'pipeline=texas-eastern');
    expect(all.length).toBeGreaterThan(30);
    expect(all.every((n) => n.pipeline_slug === 'texas-eastern')).toBe(true);
    expect(new Set(all.map((n) => n.id)).size).toBe(all.length);
    const p2 = pagination(await call('/api/v1/ip/notices?pipeline=texas-eastern&page=2'));
    expect(p2.total_results).toBe(all.length);
    expect(p2.url_current).toBe('/api/v1/ip/notices?pipeline=texas-eastern&page=2');
    expect(p2.url_next).toBe('/api/v1/ip/notices?pipeline=texas-eastern&page=3');
    expect(p2.url_previous).toBe('/api/v1/ip/notices?pipeline=texas-eastern&page=1');
    expect(p2.url_current.startsWith(sim.url)).toBe(false);

    const none = await call('/api/v1/ip/notices?pipeline=no-such-pipeline');
    expect(none.status).toBe(200);
    expect(none.json.data).toEqual([]);
    expect(pagination(none)).toMatchObject({
      total_results: 0,
      total_pages: 1,
      current_result_first: 0,
    });
  });

  it('rejects a page that is not a positive integer with 400', async () => {
    const { call } = await start();
    for (const page of ['0', '-1', 'abc', '1.5', '']) {
      const r = await call(`/api/v1/ip/notices?page=${page}`);
      expect(r.status).toBe(400);
      expect(r.json.status).toBe('error');
      expect(r.json.messages[0]).toContain('page');
    }
  });

  it('uses the page size option and the Host the client used for absolute URLs', async () => {
    const { sim } = await start({ perPage: 7 });
    const viaLocalhost = caller(sim.url.replace('127.0.0.1', 'localhost'));
    const r = await viaLocalhost('/api/v1/ip/notices?page=2');
    expect((r.json.data as unknown[]).length).toBe(7);
    expect(pagination(r).url_next).toBe(`http://localhost:${sim.port}/api/v1/ip/notices?page=3`);
  });
});

describe('pipelines', () => {
  it('lists at least 24 pipelines by id with the spec fields and no timezone', async () => {
    const { call } = await start();
    const r = await call('/api/v1/ip/pipelines');
    const list = r.json.data as Array<Record<string, unknown>>;
    expect(r.json.meta).toEqual({ total_results: list.length });
    expect(list.length).toBeGreaterThanOrEqual(24);
    const ids = list.map((p) => p.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const p of list) {
      expect(Object.keys(p)).toEqual([
        'id',
        'name',
        'slug',
        'url',
        'tsp_name',
        'tsp_id',
        'service_created_at',
        'service_updated_at',
      ]);
      expect(p.slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
    const transco = list.find((p) => p.slug === 'transco')!;
    expect(transco.tsp_id).toBe('007933021');
    expect(list.find((p) => p.slug === 'algonquin')!.tsp_id).toBe('');
    for (const slug of ['texas-eastern', 'northern-natural', 'southern-star', 'kern-river']) {
      expect(list.some((p) => p.slug === slug)).toBe(true);
    }
  });
});
