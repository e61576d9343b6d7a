import { describe, expect, it } from 'vitest';
import {
  isLastPage,
  paginationOf,
  type WalkEnd,
  type WalkedPage,
  walkDefaults,
  walkPages,
} from '../../src/upstream/pagination.js';
import { PaginationSchema } from '../../src/upstream/schemas.js';

/** A page of the given ids with the given raw pagination metadata. */
function page(ids: number[], pagination: Record<string, unknown> = {}): WalkedPage {
  return {
    rawCount: ids.length,
    data: ids.map((id) => ({ id })),
    pagination: PaginationSchema.parse(pagination),
  };
}

/** A listing that serves `serve(n)` as page n and records which pages were asked for. */
function listing(serve: (n: number) => WalkedPage | Error) {
  const asked: number[] = [];
  const ends: WalkEnd[] = [];
  const fetchPage = async (n: number) => {
    asked.push(n);
    const served = serve(n);
    if (served instanceof Error) throw served;
    return served;
  };
  return { asked, ends, fetchPage, onEnd: (end: WalkEnd) => ends.push(end) };
}

describe('walkPages', () => {
  it('starts at the first page asked for and counts the bound from there', async () => {
    const l = listing((n) => page([n]));
    const seen: number[] = [];
    const walk = walkPages(l.fetchPage, { firstPage: 5, maxPages: 3 }, l.onEnd);
    for await (const p of walk) seen.push(p.data[0]!.id as number);
    expect(seen).toEqual([5, 6, 7]);
    expect(l.asked).toEqual([5, 6, 7]);
    expect(l.ends).toEqual(['page-bound']);
  });

  it('fetches one page when the bound is zero or negative', async () => {
    for (const maxPages of [0, -4]) {
      const l = listing((n) => page([n]));
      for await (const _ of walkPages(l.fetchPage, { maxPages }, l.onEnd));
      expect(l.asked).toEqual([1]);
      expect(l.ends).toEqual(['page-bound']);
    }
  });

  it('stops at the default bound on an endless listing when no bound is given', async () => {
    const l = listing((n) => page([n]));
    let pages = 0;
    for await (const _ of walkPages(l.fetchPage, {}, l.onEnd)) pages++;
    expect(pages).toBe(walkDefaults.maxPages);
    expect(l.asked.at(-1)).toBe(walkDefaults.maxPages);
    expect(l.ends).toEqual(['page-bound']);
  });

  it('tells a consumer that stops early apart, and fetches nothing more', async () => {
    const l = listing((n) => page([n]));
    for await (const p of walkPages(l.fetchPage, { maxPages: 10 }, l.onEnd)) {
      if (p.data[0]!.id === 2) break;
    }
    expect(l.asked).toEqual([1, 2]);
    expect(l.ends).toEqual(['consumer']);
  });

  it('ends at a page reporting an earlier current_page when page_current is absent', async () => {
    const l = listing((n) => page([n * 10], { current_page: Math.min(n, 2) }));
    const seen: number[] = [];
    for await (const p of walkPages(l.fetchPage, { maxPages: 10 }, l.onEnd)) {
      seen.push(p.data[0]!.id as number);
    }
    expect(seen).toEqual([10, 20]);
    expect(l.asked).toEqual([1, 2, 3]);
    expect(l.ends).toEqual(['repeated-page']);
  });

  it('passes a failed fetch on after the pages before it, and still reports the end', async () => {
    const l = listing((n) => (n === 3 ? new Error('page 3 failed') : page([n])));
    const seen: number[] = [];
    const walking = (async () => {
      for await (const p of walkPages(l.fetchPage, { maxPages: 10 }, l.onEnd)) {
        seen.push(p.data[0]!.id as number);
      }
    })();
    await expect(walking).rejects.toThrow('page 3 failed');
    expect(seen).toEqual([1, 2]);
    expect(l.ends).toHaveLength(1);
  });

  it('returns why it ended to a caller that drives it to the end', async () => {
    const l = listing((n) => page(n < 3 ? [n] : []));
    const walk = walkPages(l.fetchPage, { maxPages: 10 });
    let step = await walk.next();
    while (!step.done) step = await walk.next();
    expect(step.value).toBe('empty-page');
  });
});

describe('isLastPage', () => {
  it.each([
    ['total_pages reached', page([1], { total_pages: 3 }), 3, true],
    ['total_pages passed', page([1], { total_pages: 3 }), 4, true],
    ['total_pages ahead', page([1], { total_pages: 3 }), 2, false],
    ['page_next not moving on', page([1], { page_next: 2 }), 2, true],
    ['page_next pointing back', page([1], { page_next: 1 }), 2, true],
    ['page_next ahead', page([1], { page_next: 3 }), 2, false],
    ['a short page', page([1, 2], { per_page: 3 }), 1, true],
    ['a full page', page([1, 2, 3], { per_page: 3 }), 1, false],
    [
      'a page short of well-formed items only',
      { ...page([1, 2], { per_page: 3 }), rawCount: 3 },
      1,
      false,
    ],
    ['no metadata at all', page([1]), 1, false],
    ['numbers sent as strings', page([1], { total_pages: '2' }), 2, true],
  ])('%s', (_name, result, n, expected) => {
    expect(isLastPage(result, n)).toBe(expected);
  });
});

describe('paginationOf', () => {
  const empty = PaginationSchema.parse({});

  it.each([
    ['meta missing', undefined],
    ['meta not an object', 'not an object'],
    ['pagination missing', { other: 1 }],
    ['pagination not an object', { pagination: [1, 2] }],
  ])('reads %s as no pagination, every field null', (_name, meta) => {
    expect(paginationOf(meta)).toEqual(empty);
    expect(Object.values(paginationOf(meta)).every((v) => v === null)).toBe(true);
  });

  it('reads the fields that are there and leaves the unreadable ones null', () => {
    const p = paginationOf({ pagination: { total_pages: '4', page_next: 2.5, per_page: 20 } });
    expect(p).toMatchObject({ total_pages: 4, page_next: null, per_page: 20, page_current: null });
  });
});
