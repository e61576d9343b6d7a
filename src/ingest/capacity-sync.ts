/**
 * The capacity sync. For each pipeline of the plan (src/ingest/capacity-plan.ts: what the
 * rules ask for) it fetches `latest` on every run, then each planned nomination cycle once
 * it is due: shortly after its scheduled quantities are posted (Central Clock Time,
 * daylight saving included), and again on later runs for a while as long as the API
 * answers that the cycle is not there yet. A named cycle once stored is never fetched
 * again, so a run when nothing is due costs one request per pipeline. Each fetched cycle
 * is stored in one transaction together with the event it causes.
 */
import {
  addDays,
  type Cycle,
  cyclePostedAt,
  gasDayOf,
  NOMINATION_CYCLES,
} from '../domain/gas-day.js';
import { formatDuration } from '../lib/duration.js';
import { toUtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import {
  AuthenticationError,
  NotFoundError,
  RetryableUpstreamError,
  UpstreamError,
} from '../upstream/errors.js';
import type { CapacityCycle } from '../upstream/schemas.js';
import { CAPACITY_PIPELINES_VARIABLE, type PlannedPipeline } from './capacity-plan.js';
import type { CapacityEvent, IngestDeps } from './events.js';

/** The feed name in `sync_state`, the metrics and the logs. */
export const CAPACITY_FEED = 'capacity';

/** What to follow and when a named cycle is worth asking for. */
export interface CapacitySyncOptions {
  /** The pipelines to follow: planned ones, or bare slugs (every cycle, reported when unknown). */
  pipelines: ReadonlyArray<string | PlannedPipeline>;
  /** Fetch a named cycle this long after its scheduled posting time (pipelines post late). */
  postingGraceMs?: number;
  /** Keep trying a due cycle the API does not have yet this long after its posting time. */
  retryWindowMs?: number;
  /**
   * A pipeline only implied by a rule naming none, for which the API said it has no
   * capacity data, is asked again after this long.
   */
  missingRecheckMs?: number;
}

/** Defaults, declared once: ten minutes' grace, six hours of retries, a day's rest. */
export const capacitySyncDefaults = {
  postingGraceMs: 10 * 60_000,
  retryWindowMs: 6 * 3_600_000,
  missingRecheckMs: 86_400_000,
} as const satisfies Required<Omit<CapacitySyncOptions, 'pipelines'>>;

export type CapacitySyncDeps = IngestDeps;

/** What one sync did, for logs, tests and the error that reports failed pipelines. */
export interface CapacitySyncResult {
  /** Capacity requests this sync made (retries of one request count once). */
  requests: number;
  new: number;
  updated: number;
  unchanged: number;
  /** Due named cycles the API did not have yet; they are asked for again next run. */
  notYetPosted: number;
  /** Implied pipelines the API has no capacity data for, skipped or just found out. */
  withoutCapacity: string[];
  /** Fetches that failed; `gasDay` is null for `latest`. */
  failed: Array<{ pipeline: string; cycle: string; gasDay: string | null; error: string }>;
}

/**
 * Some pipelines failed for a reason other than "not posted yet". Thrown at the end of a
 * run, so the scheduler records the failure and backs off, while everything fetched before
 * stays stored and the other pipelines were still synced; `result` says what happened.
 */
export class CapacitySyncError extends Error {
  readonly code = 'CAPACITY_SYNC';

  constructor(readonly result: CapacitySyncResult) {
    const pipelines = [...new Set(result.failed.map((f) => f.pipeline))].join(', ');
    const first = result.failed[0];
    const which = first
      ? `${first.pipeline} ${first.cycle}${first.gasDay ? ` ${first.gasDay}` : ''}`
      : '';
    const more = result.failed.length > 1 ? ` (and ${result.failed.length - 1} more)` : '';
    super(`capacity sync failed for ${pipelines}: ${which}: ${first?.error ?? ''}${more}`);
    this.name = 'CapacitySyncError';
  }
}

/** A named cycle of a gas day. */
export interface DueCycle {
  gasDay: string;
  cycle: Cycle;
}

/**
 * Which named cycles of one pipeline are due at `now`, in posting order: a cycle is due
 * when `now` is at least its posting time plus the grace, at most its posting time plus the
 * retry window, and it is not stored yet. The gas days looked at are `gasDayOf(now)` and
 * the next (whose timely and evening cycles are posted the day before), and earlier ones
 * only as far as the retry window reaches back.
 */
export async function dueCycles(
  store: AsyncStore,
  slug: string,
  now: Date,
  options: Pick<CapacitySyncOptions, 'postingGraceMs' | 'retryWindowMs'> & {
    /** Only these cycles; default every one. */
    cycles?: readonly Cycle[];
  } = {},
): Promise<DueCycle[]> {
  const grace = options.postingGraceMs ?? capacitySyncDefaults.postingGraceMs;
  const window = options.retryWindowMs ?? capacitySyncDefaults.retryWindowMs;
  const t = now.getTime();
  const last = addDays(gasDayOf(now), 1);
  const due: Array<DueCycle & { postedAt: number }> = [];
  const cycles = options.cycles ?? NOMINATION_CYCLES;
  for (let day = gasDayOf(new Date(t - window)); day <= last; day = addDays(day, 1)) {
    for (const cycle of cycles) {
      const postedAt = cyclePostedAt(day, cycle).getTime();
      if (t < postedAt + grace || t > postedAt + window) continue;
      if (!(await store.capacity.has(slug, day, cycle))) due.push({ gasDay: day, cycle, postedAt });
    }
  }
  return due
    .sort((a, b) => a.postedAt - b.postedAt)
    .map(({ gasDay, cycle }) => ({ gasDay, cycle }));
}

/** How one fetch ended; `unreachable` (unknown slug, API in trouble) ends the pipeline's run. */
type FetchOutcome = 'stored' | 'not-posted' | 'failed' | 'unreachable';

function planned(p: string | PlannedPipeline): PlannedPipeline {
  if (typeof p !== 'string') return p;
  return {
    slug: p,
    cycles: [...NOMINATION_CYCLES],
    requestedBy: [{ by: CAPACITY_PIPELINES_VARIABLE, cycles: [...NOMINATION_CYCLES] }],
    implicit: false,
  };
}

/** Whether an implied pipeline is resting after the API said it has no capacity data. */
async function resting(
  deps: CapacitySyncDeps,
  p: PlannedPipeline,
  recheckMs: number,
): Promise<boolean> {
  if (!p.implicit) return false;
  const missing = (await deps.store.pipelines.bySlug(p.slug))?.capacity_missing_at;
  return missing != null && deps.clock.now().getTime() - Date.parse(missing) < recheckMs;
}

/**
 * Runs one capacity sync over `options.pipelines`. An authentication failure, or a failure
 * with the API's `Retry-After`, ends the run at once (no other pipeline can do better, and
 * the scheduler honours the wait); any other failure is recorded and the run goes on,
 * ending in `CapacitySyncError`.
 */
export async function syncCapacity(
  deps: CapacitySyncDeps,
  options: CapacitySyncOptions,
  signal?: AbortSignal,
): Promise<CapacitySyncResult> {
  const { logger } = deps;
  const result: CapacitySyncResult = {
    requests: 0,
    new: 0,
    updated: 0,
    unchanged: 0,
    notYetPosted: 0,
    withoutCapacity: [],
    failed: [],
  };
  const recheckMs = options.missingRecheckMs ?? capacitySyncDefaults.missingRecheckMs;
  for (const p of options.pipelines.map(planned)) {
    signal?.throwIfAborted();
    if (await resting(deps, p, recheckMs)) {
      result.withoutCapacity.push(p.slug);
      continue;
    }
    const latest = await fetchCycle(deps, result, p, 'latest', null, signal, recheckMs);
    if (latest === 'unreachable') continue;
    // Decided after `latest` is stored, so a due cycle that `latest` just brought is skipped.
    const due = await dueCycles(deps.store, p.slug, deps.clock.now(), {
      ...options,
      cycles: p.cycles,
    });
    for (const { gasDay, cycle } of due) {
      signal?.throwIfAborted();
      if ((await fetchCycle(deps, result, p, cycle, gasDay, signal)) === 'unreachable') break;
    }
  }

  const changed = result.new + result.updated > 0;
  logger[changed ? 'info' : 'debug'](
    { feed: CAPACITY_FEED, ...result, failed: result.failed.length },
    `capacity: ${result.new} new, ${result.updated} updated, ${result.unchanged} unchanged cycles; ${result.notYetPosted} not posted yet`,
  );
  if (result.failed.length > 0) throw new CapacitySyncError(result);
  return result;
}

/** Fetches one cycle and stores it with its event; records any failure in `result`. */
async function fetchCycle(
  deps: CapacitySyncDeps,
  result: CapacitySyncResult,
  p: PlannedPipeline,
  cycle: CapacityCycle,
  gasDay: string | null,
  signal: AbortSignal | undefined,
  recheckMs: number = capacitySyncDefaults.missingRecheckMs,
): Promise<FetchOutcome> {
  const { store, logger } = deps;
  const slug = p.slug;
  const where = { feed: CAPACITY_FEED, pipeline: slug, cycle, gasDay };
  const what =
    gasDay === null
      ? `${cycle} capacity of ${slug}`
      : `${cycle} capacity of ${slug} for gas day ${gasDay}`;
  try {
    // Counted here: the feeds share one client, so its counters mix theirs.
    result.requests++;
    const response = await deps.client.capacity(slug, {
      cycle,
      gasDay: gasDay ?? undefined,
      signal,
    });
    const skipped = response.skipped.length;
    if (skipped > 0) {
      deps.metrics?.skippedRecords.inc({ feed: CAPACITY_FEED }, skipped);
      logger.warn({ ...where, skipped }, `${what}: skipped ${skipped} malformed locations`);
    }
    const { cycle: info, locations } = response.data;
    if (gasDay !== null && (info.gas_day !== gasDay || info.cycle !== cycle)) {
      // Stored all the same; the asked-for cycle stays due and is asked for again.
      logger.warn(
        { ...where, got: { cycle: info.cycle, gasDay: info.gas_day } },
        `${what}: the API sent ${info.cycle} of ${info.gas_day} instead`,
      );
    }
    const seenAt = toUtcIso(deps.clock.now());
    const stored = await store.transaction(async () => {
      if (p.implicit && gasDay === null) await store.pipelines.setCapacityMissing(slug, null);
      const upsert = await store.capacity.upsertCycle(info, locations, seenAt);
      if (upsert.change !== 'unchanged') {
        const event: CapacityEvent = {
          kind: 'capacity',
          change: upsert.change,
          cycle: info,
          locations,
          version: upsert.version,
          seenAt,
        };
        if (deps.hooks?.capacity) await deps.hooks.capacity(event);
      }
      return upsert;
    });
    result[stored.change]++;
    deps.metrics?.capacityCycles.inc({ change: stored.change });
    return 'stored';
  } catch (error) {
    // Refused credentials, or an API asking to be left alone: no other pipeline does better.
    const backOff = error instanceof UpstreamError && error.retryAfterMs !== undefined;
    if (error instanceof AuthenticationError || backOff || signal?.aborted) throw error;
    if (error instanceof NotFoundError && gasDay !== null) {
      result.notYetPosted++;
      logger.debug(where, `${what}: not posted yet`);
      return 'not-posted';
    }
    if (error instanceof NotFoundError && p.implicit) {
      await store.pipelines.setCapacityMissing(slug, toUtcIso(deps.clock.now()));
      result.withoutCapacity.push(slug);
      logger.info(
        where,
        `${slug}: the API has no capacity data for it; asked again in ${formatDuration(recheckMs)}`,
      );
      return 'unreachable';
    }
    const askedBy = [...new Set(p.requestedBy.map((r) => r.by))].join(', ');
    const message =
      error instanceof NotFoundError
        ? `unknown pipeline '${slug}': the API has no capacity data for it (${error.apiMessages.join(' ') || error.reason}); check ${askedBy || CAPACITY_PIPELINES_VARIABLE}`
        : error instanceof Error
          ? error.message
          : String(error);
    result.failed.push({ pipeline: slug, cycle, gasDay, error: message });
    logger.warn(
      { ...where, code: error instanceof UpstreamError ? error.code : undefined },
      `${what} failed: ${message}`,
    );
    // An unknown slug, or an API in trouble: the pipeline's other cycles wait for the next run.
    return error instanceof NotFoundError || error instanceof RetryableUpstreamError
      ? 'unreachable'
      : 'failed';
  }
}
