/**
 * GET /ip/notices: latest first, filtered by pipeline, paginated with every field of the
 * spec's pagination object. On the last page `page_next` repeats the current page, as the
 * real service's documentation shows, so clients must stop on `total_pages`.
 */
import { DEMO_MAX_PAGES, DEMO_PER_PAGE, type SimulatorCore } from './core.js';
import { type ApiResponse, failure, success } from './http.js';
import { wireNotice } from './notice-store.js';
import type { SimulatorUser } from './options.js';
import { pipelineBySlug } from './pipelines.js';
import { formatDateTime } from './sim-time.js';

/** What the notices route needs to know about the request. */
export interface NoticesRequest {
  user: SimulatorUser;
  params: URLSearchParams;
  /** `http://host:port` as the client addressed the service. */
  origin: string;
}

const PAGE_RE = /^0*[1-9]\d{0,8}$/;

/** The response to GET /ip/notices. */
export function noticesResponse(core: SimulatorCore, req: NoticesRequest): ApiResponse {
  const demo = req.user.plan === 'demo';
  const messages = demo ? [core.demoMessage] : [];
  const pageParam = req.params.get('page');
  if (pageParam !== null && !PAGE_RE.test(pageParam)) {
    return failure(400, `Invalid page '${pageParam}': expected a positive integer.`, messages);
  }
  const page = pageParam === null ? 1 : Number(pageParam);
  const slug = req.params.get('pipeline') || undefined;
  const pipelineId = slug === undefined ? undefined : pipelineBySlug(slug)?.id;
  const matching =
    slug !== undefined && pipelineId === undefined
      ? []
      : core.store.list({
          createdBy: formatDateTime(core.time.nowMs()),
          ...(pipelineId === undefined ? {} : { pipelineId }),
          ...(demo ? { postedBefore: core.demoNoticeCutoff } : {}),
        });
  const perPage = demo ? DEMO_PER_PAGE : core.opts.perPage;
  const total = demo ? Math.min(matching.length, perPage * DEMO_MAX_PAGES) : matching.length;
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const first = (page - 1) * perPage;
  const items = page <= totalPages ? matching.slice(first, Math.min(first + perPage, total)) : [];

  const prefix = core.opts.urlStyle === 'absolute' ? req.origin : '';
  const url = (n: number) => {
    const query = new URLSearchParams();
    if (slug !== undefined) query.set('pipeline', slug);
    query.set('page', String(n));
    return `${prefix}/api/v1/ip/notices?${query}`;
  };
  const next = page < totalPages ? page + 1 : page;
  const previous = Math.max(1, page - 1);
  const pagination = {
    total_results: total,
    total_pages: totalPages,
    page_previous: previous,
    page_next: next,
    page_current: page,
    current_page: page,
    current_result: items.length,
    current_result_first: items.length > 0 ? first + 1 : 0,
    current_result_last: items.length > 0 ? first + items.length : 0,
    per_page: perPage,
    url_next: url(next),
    url_current: url(page),
    url_previous: url(previous),
  };
  return success(items.map(wireNotice), { pagination }, messages);
}
