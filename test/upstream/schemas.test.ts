import { describe, expect, it } from 'vitest';
import { toUtcIso } from '../../src/lib/time.js';
import {
  CapacityLocationSchema,
  NoticeSchema,
  PaginationSchema,
  parseApiDateTime,
  parseQuantity,
} from '../../src/upstream/schemas.js';

describe('datetimes', () => {
  it.each([
    ['2026-11-20 14:05:00', '2026-11-20T14:05:00Z'],
    ['2026-11-20T14:05:00Z', '2026-11-20T14:05:00Z'],
    ['2026-11-20 14:05:00.000', '2026-11-20T14:05:00Z'],
    ['9000-12-31 00:00:00', '9000-12-31T00:00:00Z'],
    ['2049-12-31 23:59:00', '2049-12-31T23:59:00Z'],
    ['', null],
    ['  ', null],
    ['0000-00-00 00:00:00', null],
  ])('%j is %j', (text, iso) => expect(parseApiDateTime(text)).toBe(iso));

  it.each([
    'not-a-date',
    '2026-02-30 10:00:00',
    '2026-11-20 24:00:00',
    '20/11/2026 10:00',
    '2026-11-20',
    42,
  ])('rejects %j in a record, naming the field', (value) => {
    const result = NoticeSchema.safeParse({ id: 1, pipeline_id: 2, posted_at: value });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['posted_at']);
    expect(result.error?.issues[0]?.message).toMatch(/^not a datetime: /);
  });

  it('reads null and absent as null', () => {
    const parsed = NoticeSchema.parse({ id: 1, pipeline_id: 2, posted_at: null });
    expect(parsed.posted_at).toBeNull();
    expect(parsed.end_at).toBeNull();
  });

  it('formats instants without milliseconds', () => {
    expect(toUtcIso(new Date('2026-11-20T14:05:00.123Z'))).toBe('2026-11-20T14:05:00Z');
  });
});

describe('quantities', () => {
  it.each([
    [75294, 75294],
    ['75294', 75294],
    ['491,551', 491551],
    [' 1,234,567 ', 1234567],
    ['0', 0],
    ['12.5', 12.5],
    ['', null],
    [null, null],
    [undefined, null],
  ])('%j is %j', (raw, n) => expect(parseQuantity(raw)).toBe(n));

  it.each(['n/a', '1.2.3', 'abc', '1-2', true])(
    'rejects %j in a location, naming the field',
    (raw) => {
      const result = CapacityLocationSchema.safeParse({ id: 1, oac: raw });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(['oac']);
      expect(result.error?.issues[0]?.message).toMatch(/^not a quantity: /);
    },
  );

  it('rejects digits past the range of a number rather than reading them as infinite', () => {
    for (const raw of ['9'.repeat(400), `-${'9'.repeat(400)}`]) {
      expect(parseQuantity(raw)).toBeUndefined();
      const result = CapacityLocationSchema.safeParse({ id: 1, oac: raw });
      expect(result.error?.issues[0]?.message).toMatch(/^not a quantity: /);
    }
  });
});

describe('records', () => {
  const notice = {
    id: 101,
    pipeline_id: 7,
    pipeline_name: 'Transcontinental Gas Pipe Line',
    pipeline_slug: 'transco',
    pipeline_url: 'https://example.com/transco',
    subject: 'Capacity Constraint',
    identifier: '26-0412',
    url: 'https://example.com/n/26-0412',
    category: 'Critical',
    type: 'Capacity Constraint',
    status: '',
    notice: 'Text',
    html: '<p>Text</p>',
    mobile: '<p>Text</p>',
    posted_at: '2026-11-20 14:05:00',
    effective_at: '2026-11-21 14:00:00',
    end_at: '',
    response_at: '',
    service_created_at: '2026-11-20 14:07:12',
    service_updated_at: '2026-11-20 14:07:12',
    some_new_field: 'ignored',
  };

  it('normalises a notice and drops unknown fields', () => {
    const parsed = NoticeSchema.parse(notice);
    expect(parsed.posted_at).toBe('2026-11-20T14:05:00Z');
    expect(parsed.end_at).toBeNull();
    expect(parsed.status).toBe('');
    expect(parsed).not.toHaveProperty('some_new_field');
  });

  it('accepts missing optional fields and numeric ids as strings', () => {
    const parsed = NoticeSchema.parse({ id: '102', pipeline_id: 7, subject: 'x' });
    expect(parsed.id).toBe(102);
    expect(parsed.response_at).toBeNull();
    expect(parsed.html).toBe('');
  });

  it('rejects a notice without a usable id', () => {
    expect(NoticeSchema.safeParse({ ...notice, id: 'abc' }).success).toBe(false);
    expect(NoticeSchema.safeParse({ ...notice, id: undefined }).success).toBe(false);
  });

  it('parses a capacity location with string quantities', () => {
    const loc = CapacityLocationSchema.parse({
      id: 5,
      location: 'STRATTON RIDGE',
      identifier: '79999',
      flow: 'D',
      qti: 'DPQ',
      zone: 'STX',
      dc: '322,000',
      opc: 322000,
      tsq: '246,706',
      oac: '75,294',
      it: 'N',
      all: 'Y',
      reason: '',
    });
    expect([loc.dc, loc.opc, loc.tsq, loc.oac]).toEqual([322000, 322000, 246706, 75294]);
  });
});

describe('pagination', () => {
  it('normalises absolute URLs and paths to the same path', () => {
    const a = PaginationSchema.parse({
      url_next: 'https://api.example.com/api/v1/ip/notices?page=2',
    });
    const b = PaginationSchema.parse({ url_next: '/api/v1/ip/notices?page=2' });
    expect(a.url_next).toBe('/api/v1/ip/notices?page=2');
    expect(b.url_next).toBe(a.url_next);
  });

  it('tolerates junk in every field', () => {
    const p = PaginationSchema.parse({
      total_pages: 'many',
      page_next: null,
      url_next: 42,
      per_page: '20',
    });
    expect(p.total_pages).toBeNull();
    expect(p.page_next).toBeNull();
    expect(p.url_next).toBeNull();
    expect(p.per_page).toBe(20);
    expect(PaginationSchema.parse({}).total_results).toBeNull();
  });
});
