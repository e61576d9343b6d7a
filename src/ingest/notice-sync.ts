import { setImmediate } from 'node:timers/promises';
import { z } from 'zod';
import { toUtcIso, type UtcIso } from '../lib/time.js';
import { counted } from '../lib/words.js';
import type { AsyncStore } from '../store/async-store.js';
import type { NoticeChange } from '../store/notices.js';
import type { WalkEnd } from '../upstream/pagination.js';
import type { Notice } from '../upstream/schemas.js';
import type { IngestDeps, IngestHooks, NoticeEvent } from './events.js';

/** The feed name in `sync_state`. */
export const NOTICES_FEED = 'notices';

export interface NoticeSyncOptions {
  /** A notice posted longer ago than this is stored but never alerts. */
  maxAlertAgeMs: number;
  /** Only these pipelines (slugs) emit events; empty: all. */
  pipelines: readonly string[];
  /** The baseline reads at most this many pages… */
  baselinePages: number;
  /** …and stops after a page whose newest notice is older than this. */
  baselineMaxAgeMs: number;
  /** A regular sync reads at least this many pages. */
  minPages: number;
  /**
   * A pipeline may post a notice with a `posted_at` this much older than when the API
   * shows it, so it can land below notices already stored: a regular sync reads on while
   * a page reaches back past its previous sync less this window.
   */
  latePostingWindowMs: number;
  /** At least this long after the last deep scan, a sync reads `deepScanPages` pages, for longer lags and edits of older notices. */
  deepScanEveryMs: number;
  deepScanPages: number;
  /** No regular sync reads more pages than this. */
  maxPages: number;
  /**
   * About how long one transaction of a page may hold the event loop; 0: one notice that
   * changed a transaction (`ingestNoticePageInSlices`).
   */
  sliceBudgetMs: number;
}

/** Defaults, declared once. */
export const noticeSyncDefaults = {
  pipelines: [],
  baselinePages: 10,
  baselineMaxAgeMs: 7 * 86_400_000,
  minPages: 1,
  latePostingWindowMs: 45 * 60_000,
  deepScanEveryMs: 6 * 3_600_000,
  deepScanPages: 10,
  maxPages: 100,
  sliceBudgetMs: 10,
} as const satisfies Omit<NoticeSyncOptions, 'maxAlertAgeMs'>;

export type NoticeSyncDeps = IngestDeps;

/** What one sync did. */
export interface NoticeSyncResult {
  baseline: boolean;
  /** `all`, or the pipelines walked one by one. */
  scope: 'all' | string[];
  pages: number;
  /** Pages requested (retries of one page count once). */
  requests: number;
  new: number;
  updated: number;
  unchanged: number;
  skipped: number;
  /** Events handed to the hooks. */
  emitted: number;
  end: WalkEnd | 'caught-up' | 'baseline-depth';
}

/** Persisted between syncs in `sync_state.cursor`, and read back through this schema. */
const cursorSchema = z.looseObject({
  baselineDoneAt: z.string().optional(),
  /** Newest `service_created_at` (else `posted_at`) the baseline saw. */
  baselineHorizon: z.string().optional(),
  syncs: z.number().optional(),
  /** When the last successful sync started: what it saw is stored. */
  lastSyncAt: z.string().optional(),
  /** When the last deep scan (or the baseline) started. */
  lastDeepScanAt: z.string().optional(),
  /** Pages the last walk over all pipelines needed; decides whether per-pipeline walks are cheaper. */
  lastAllPages: z.number().optional(),
  /**
   * A sync that failed part-way leaves the pages after it unread; the next one reads at
   * least this deep before it may stop at a page with nothing new.
   */
  resumeDepth: z.number().optional(),
});
type Cursor = z.output<typeof cursorSchema>;

/** Counts of one page. */
export interface PageOutcome {
  counts: Record<NoticeChange, number>;
  events: NoticeEvent[];
}

/** Where one page's notices are stored from, and what they are judged with. */
export interface PageContext {
  seenAt: UtcIso;
  baseline: boolean;
  /** A notice new to the store but created in the service before this is baseline too. */
  baselineHorizon?: UtcIso | undefined;
  /** Notices posted before this instant are too old to alert. */
  alertableAfter: UtcIso;
  /** Pipelines that emit events; empty: all. */
  pipelines: ReadonlySet<string>;
  hooks?: IngestHooks | undefined;
}

/**
 * Stores one page of notices in one transaction, each new or changed notice handed to
 * the hooks inside it as soon as it is stored. Exposed for the benchmarks and tests; a
 * sync stores its pages in slices instead (`ingestNoticePageInSlices`), which decide the
 * same.
 */
export async function ingestNoticePage(
  store: AsyncStore,
  notices: readonly Notice[],
  context: PageContext,
): Promise<PageOutcome> {
  const outcome: PageOutcome = { counts: { new: 0, updated: 0, unchanged: 0 }, events: [] };
  await storeSlice(store, notices, 0, context, Number.POSITIVE_INFINITY, outcome);
  return outcome;
}

/**
 * Stores one page of notices as `ingestNoticePage` does, in transactions of about
 * `budgetMs` each (each ends with the notice that passes it), with the event loop free
 * between two: a page whose notices fan
 * out to thousands of alerts holds back an HTTP answer (`/healthz`, a chat command) no
 * longer than one slice, or one notice where a notice takes longer. Each notice is
 * stored and decided in one transaction, and decided right after it is stored in either
 * function, so where a slice ends changes no decision; a crash between two slices leaves
 * the notices before stored with their decisions and the rest unread, to be found new by
 * the next sync, as between two pages.
 */
export async function ingestNoticePageInSlices(
  store: AsyncStore,
  notices: readonly Notice[],
  context: PageContext,
  budgetMs: number = noticeSyncDefaults.sliceBudgetMs,
): Promise<PageOutcome> {
  const outcome: PageOutcome = { counts: { new: 0, updated: 0, unchanged: 0 }, events: [] };
  let from = 0;
  while (from < notices.length) {
    from = await storeSlice(store, notices, from, context, budgetMs, outcome);
    if (from < notices.length) await setImmediate();
  }
  return outcome;
}

/**
 * Stores `notices` from `from` in one transaction, adding to `outcome`: each notice is
 * stored, then, when it is new or changed, handed to the hooks (a quiet one to
 * `baseline`, any other as an event to `notices`). Ends after the notice that passes
 * `budgetMs` (counted from when the transaction began, not from when it was asked for),
 * or at the end; returns where it ended.
 */
function storeSlice(
  store: AsyncStore,
  notices: readonly Notice[],
  from: number,
  context: PageContext,
  budgetMs: number,
  outcome: PageOutcome,
): Promise<number> {
  return store.transaction(async () => {
    const started = performance.now();
    const { counts } = outcome;
    const hooks = context.hooks?.transaction?.() ?? context.hooks;
    const horizon = context.baselineHorizon;
    const rest = from === 0 ? notices : notices.slice(from);
    const stored = await store.notices.metaOf(rest.map((n) => n.id));
    // A notice the page holds twice meets its own first copy: looked up again.
    const met = new Set<number>();
    let at = from;
    for (const notice of rest) {
      at++;
      const created = notice.service_created_at ?? notice.posted_at;
      const preexisting =
        context.baseline || (horizon !== undefined && created !== null && created < horizon);
      const known = met.has(notice.id) ? undefined : (stored.get(notice.id) ?? null);
      met.add(notice.id);
      const result = await store.notices.upsert(notice, context.seenAt, preexisting, known);
      counts[result.change]++;
      if (result.change === 'unchanged') continue;
      if (context.pipelines.size > 0 && !context.pipelines.has(notice.pipeline_slug)) continue;
      if (result.change === 'new' && preexisting) {
        if (hooks?.baseline) await hooks.baseline([notice]);
      } else {
        const posted = notice.posted_at ?? notice.service_created_at;
        const event: NoticeEvent = {
          kind: 'notice',
          change: result.change,
          notice,
          version: result.version,
          changedFields: result.changedFields,
          previous: result.previous,
          tooOld: posted !== null && posted < context.alertableAfter,
          seenAt: context.seenAt,
        };
        if (hooks?.notices) await hooks.notices([event]);
        outcome.events.push(event);
      }
      if (performance.now() - started >= budgetMs) break;
    }
    return at;
  });
}

/**
 * What one sync will read, decided from the cursor before the first request: whether it
 * is the baseline, which scopes (every pipeline at once, or one by one), how deep it
 * must go and may go, and the posting time below which a page is old news.
 */
interface SyncPlan {
  cursor: Cursor;
  baseline: boolean;
  syncNumber: number;
  perPipeline: boolean;
  scopes: Array<string | undefined>;
  /** A deep scan: the scheduled depth is `deepScanPages`. */
  deep: boolean;
  minPages: number;
  maxPages: number;
  /** Notices the API showed after the previous sync were posted after this. */
  lateCutoff: UtcIso | undefined;
  startedAt: Date;
}

function planSync(cursor: Cursor, options: NoticeSyncOptions, startedAt: Date): SyncPlan {
  // A baseline that failed part-way is still the baseline: it starts again from page 1.
  const baseline = cursor.baselineDoneAt === undefined;
  const wanted = options.pipelines;
  const perPipeline =
    !baseline &&
    wanted.length > 0 &&
    wanted.length * options.minPages < (cursor.lastAllPages ?? Number.POSITIVE_INFINITY);
  const deep =
    !baseline &&
    (cursor.lastDeepScanAt === undefined ||
      startedAt.getTime() - Date.parse(cursor.lastDeepScanAt) >= options.deepScanEveryMs);
  const scheduledDepth = deep ? options.deepScanPages : options.minPages;
  const minPages = baseline ? 1 : Math.max(scheduledDepth, cursor.resumeDepth ?? 0);
  // A notice the API showed after the previous sync was posted at most the window before it.
  const lateCutoff =
    cursor.lastSyncAt === undefined
      ? undefined
      : toUtcIso(new Date(Date.parse(cursor.lastSyncAt) - options.latePostingWindowMs));
  return {
    cursor,
    baseline,
    syncNumber: (cursor.syncs ?? 0) + 1,
    perPipeline,
    scopes: perPipeline ? [...wanted] : [undefined],
    deep,
    minPages,
    maxPages: baseline ? options.baselinePages : Math.max(options.maxPages, minPages),
    lateCutoff,
    startedAt,
  };
}

/** What a sync has read so far: its counts, and the baseline's newest creation time. */
interface SyncProgress {
  result: NoticeSyncResult;
  horizon: string | undefined;
  pipelines: ReadonlySet<string>;
}

/**
 * Walks one scope's pages, storing and judging each, until the walk is caught up (or the
 * baseline deep enough), the pages run out, or the page bound is reached.
 */
async function walkScope(
  deps: NoticeSyncDeps,
  options: NoticeSyncOptions,
  plan: SyncPlan,
  pipeline: string | undefined,
  progress: SyncProgress,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { store, clock } = deps;
  const { baseline, maxPages, minPages, lateCutoff } = plan;
  const { result } = progress;
  let pagesInScope = 0;
  const walk = deps.client.noticePages({ pipeline, maxPages, ...(signal ? { signal } : {}) });
  for await (const page of walk) {
    pagesInScope++;
    result.pages++;
    result.skipped += page.skipped.length;
    if (page.skipped.length > 0)
      deps.metrics?.skippedRecords.inc({ feed: NOTICES_FEED }, page.skipped.length);
    const now = clock.now();
    const outcome = await ingestNoticePageInSlices(
      store,
      page.data,
      {
        seenAt: toUtcIso(now),
        baseline,
        baselineHorizon: progress.horizon,
        alertableAfter: toUtcIso(new Date(now.getTime() - options.maxAlertAgeMs)),
        pipelines: progress.pipelines,
        hooks: deps.hooks,
      },
      options.sliceBudgetMs,
    );
    for (const change of ['new', 'updated', 'unchanged'] as const) {
      result[change] += outcome.counts[change];
      deps.metrics?.notices.inc({ change }, outcome.counts[change]);
    }
    result.emitted += outcome.events.length;
    if (baseline) {
      for (const n of page.data) {
        const created = n.service_created_at ?? n.posted_at;
        if (created !== null && (progress.horizon === undefined || created > progress.horizon))
          progress.horizon = created;
      }
      const newest = page.data[0]?.posted_at;
      const ageLimit = toUtcIso(new Date(now.getTime() - options.baselineMaxAgeMs));
      if (newest != null && newest < ageLimit) {
        result.end = 'baseline-depth';
        break;
      }
      continue;
    }
    // With the previous sync known, the window decides: a page reaching back no further
    // than it leaves only notices posted earlier below, which the deep scan reads.
    // Without it, a page with nothing new ends the walk.
    const done =
      lateCutoff === undefined
        ? outcome.counts.new + outcome.counts.updated === 0
        : oldestPosted(page.data) < lateCutoff;
    if (done && pagesInScope >= minPages) {
      result.end = 'caught-up';
      break;
    }
  }
  // The request that found an empty or repeated page yielded nothing but was made.
  const walkEnd = deps.client.lastWalkEnd;
  result.requests +=
    pagesInScope + (walkEnd === 'empty-page' || walkEnd === 'repeated-page' ? 1 : 0);
  if (result.end !== 'caught-up' && result.end !== 'baseline-depth')
    result.end = walkEnd ?? 'last-page';
  if (baseline && result.end === 'page-bound') result.end = 'baseline-depth';
}

/** The cursor after a sync that read to its end: when, how deep, and the baseline's mark. */
function finishedCursor(plan: SyncPlan, progress: SyncProgress, doneAt: Date): Cursor {
  const { resumeDepth: _done, ...rest } = plan.cursor;
  const { baseline, deep, perPipeline, startedAt } = plan;
  const { horizon, result } = progress;
  return {
    ...rest,
    syncs: plan.syncNumber,
    lastSyncAt: toUtcIso(startedAt),
    ...(baseline || deep ? { lastDeepScanAt: toUtcIso(startedAt) } : {}),
    ...(baseline
      ? { baselineDoneAt: toUtcIso(doneAt), ...(horizon ? { baselineHorizon: horizon } : {}) }
      : {}),
    ...(perPipeline ? {} : { lastAllPages: result.pages }),
  };
}

/** One line about the sync: info when it found something, debug when it was quiet. */
function logSync(deps: NoticeSyncDeps, baseline: boolean, result: NoticeSyncResult): void {
  const quiet = !baseline && result.new + result.updated + result.skipped === 0;
  deps.logger[quiet ? 'debug' : 'info'](
    {
      feed: NOTICES_FEED,
      ...result,
      scope: result.scope === 'all' ? 'all' : result.scope.join(','),
    },
    baseline
      ? `baseline: stored ${counted(result.new, 'notice')} from ${counted(result.pages, 'page')} without alerting as new`
      : `notices: ${result.new} new, ${result.updated} updated, ${result.unchanged} unchanged over ${counted(result.pages, 'page')}`,
  );
}

/**
 * Runs one notice sync: plans it from the cursor, walks each scope, then moves the cursor
 * on. Throws the client's error when a page cannot be fetched; pages already stored stay
 * stored, and the next sync reads deeper than this one got.
 */
export async function syncNotices(
  deps: NoticeSyncDeps,
  options: NoticeSyncOptions,
  signal?: AbortSignal,
): Promise<NoticeSyncResult> {
  const { store, clock } = deps;
  const cursor = (await store.syncState.cursor(NOTICES_FEED, cursorSchema)) ?? {};
  const plan = planSync(cursor, options, clock.now());
  const progress: SyncProgress = {
    result: {
      baseline: plan.baseline,
      scope: plan.perPipeline ? [...options.pipelines] : 'all',
      pages: 0,
      requests: 0,
      new: 0,
      updated: 0,
      unchanged: 0,
      skipped: 0,
      emitted: 0,
      end: 'last-page',
    },
    horizon: cursor.baselineHorizon,
    pipelines: new Set(options.pipelines),
  };
  try {
    for (const pipeline of plan.scopes)
      await walkScope(deps, options, plan, pipeline, progress, signal);
  } catch (error) {
    // Everything stored so far stays; the next sync reads past where this one got.
    await store.syncState.setCursor(NOTICES_FEED, {
      ...cursor,
      syncs: plan.syncNumber,
      resumeDepth: Math.max(cursor.resumeDepth ?? 0, progress.result.pages + 1),
    } satisfies Cursor);
    throw error;
  }
  await store.syncState.setCursor(NOTICES_FEED, finishedCursor(plan, progress, clock.now()));
  logSync(deps, plan.baseline, progress.result);
  return progress.result;
}

/** The oldest `posted_at` of a page; `''` (older than any instant) when none has one. */
function oldestPosted(notices: readonly Notice[]): string {
  let oldest: string | undefined;
  for (const n of notices)
    if (n.posted_at && (oldest === undefined || n.posted_at < oldest)) oldest = n.posted_at;
  return oldest ?? '';
}
