/**
 * The walk over a paginated listing: page after page from a first one, until the listing
 * says it is done or behaves as if it were. Pagination metadata comes from a server that
 * may lie, repeat itself or never end, so every way out is checked and the walk is
 * bounded whatever the metadata says; `url_next` is never followed.
 */
import { z } from 'zod';
import { type Pagination, PaginationSchema } from './schemas.js';

/** Why a notice walk stopped; useful in logs and to the sync that drives it. */
export type WalkEnd = 'empty-page' | 'last-page' | 'page-bound' | 'repeated-page' | 'consumer';

/** What the walk reads of a page, so that it can be driven by any page fetcher. */
export interface WalkedPage {
  /** Items on the page as sent, malformed ones included. */
  rawCount: number;
  /** The well-formed items, whose ids tell a repeated page from a new one. */
  data: ReadonlyArray<{ id: unknown }>;
  pagination: Pagination;
}

const MetaPaginationSchema = z.object({ pagination: PaginationSchema.optional() }).catch({});

/** The `meta.pagination` of an envelope; every field null when it is missing or unreadable. */
export function paginationOf(meta: unknown): Pagination {
  return MetaPaginationSchema.parse(meta).pagination ?? PaginationSchema.parse({});
}

/** Defaults of a walk, declared once. */
export const walkDefaults = {
  /** A walk never goes past this page, whatever the pagination claims. */
  maxPages: 1000,
} as const;

/** Where a walk starts, how far it may go, and what cancels its requests. */
export interface PageWalk {
  /** First page to fetch (default 1). */
  firstPage?: number;
  /** Fetch at most this many pages (default `walkDefaults.maxPages`); fewer than 1 counts as 1. */
  maxPages?: number;
  signal?: AbortSignal;
}

/**
 * Fetches pages from `walk.firstPage` on and yields each one. The walk ends at an empty
 * page, at the last page (by `total_pages`, by `page_next` not moving on, or by a short
 * page), at a page that repeats the previous one or reports an earlier page than asked
 * for (a server that ignores `page`), or at the page bound, whichever comes first.
 * `onEnd` hears why, also when the consumer stops early (`consumer`) or a fetch throws,
 * since a consumer that breaks out of the loop never sees the generator's return value.
 */
export async function* walkPages<P extends WalkedPage>(
  fetchPage: (page: number) => Promise<P>,
  walk: PageWalk,
  onEnd: (end: WalkEnd) => void = () => {},
): AsyncGenerator<P, WalkEnd> {
  const first = walk.firstPage ?? 1;
  const bound = Math.max(1, walk.maxPages ?? walkDefaults.maxPages);
  let previousIds: string | undefined;
  let end: WalkEnd = 'page-bound';
  try {
    for (let page = first; page < first + bound; page++) {
      const result = await fetchPage(page);
      if (result.rawCount === 0) {
        end = 'empty-page';
        break;
      }
      const ids = result.data.map((n) => n.id).join(',');
      const reported = result.pagination.page_current ?? result.pagination.current_page;
      if (
        (previousIds !== undefined && ids === previousIds) ||
        (reported !== null && reported < page)
      ) {
        end = 'repeated-page';
        break;
      }
      previousIds = ids;
      end = 'consumer';
      yield result;
      if (isLastPage(result, page)) {
        end = 'last-page';
        break;
      }
      end = 'page-bound';
    }
  } finally {
    onEnd(end);
  }
  return end;
}

/** Whether `page`, just fetched, is the listing's last by any of its metadata's measures. */
export function isLastPage(result: WalkedPage, page: number): boolean {
  const p = result.pagination;
  if (p.total_pages !== null && page >= p.total_pages) return true;
  if (p.page_next !== null && p.page_next <= page) return true;
  if (p.per_page !== null && p.per_page > 0 && result.rawCount < p.per_page) return true;
  return false;
}
