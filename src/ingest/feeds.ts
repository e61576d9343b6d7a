/**
 * The four feeds the daemon schedules, built from the configuration: notices (the
 * configured interval), capacity (its interval, for what the capacity plan says),
 * pipelines (daily) and the catalog (hourly). Also the status report that `/status` and
 * `pipewatch status` print, with the subscriptions and silences stored.
 */
import type { Config } from '../config/index.js';
import { toUtcIso } from '../lib/time.js';
import { type AsyncStore, storeCounts } from '../store/async-store.js';
import type { StoreCounts } from '../store/index.js';
import type { FeedState } from '../store/sync-state.js';
import {
  CAPACITY_PIPELINES_VARIABLE,
  type CapacityPlan,
  describePlanned,
  planRequestsPerHour,
} from './capacity-plan.js';
import { CAPACITY_FEED, syncCapacity } from './capacity-sync.js';
import type { IngestDeps } from './events.js';
import { assessHealth, type FeedsHealth } from './health.js';
import {
  NoticePollPlanner,
  type NoticeScheduleReport,
  noticeScheduleReport,
} from './notice-schedule.js';
import {
  NOTICES_FEED,
  type NoticeSyncOptions,
  noticeSyncDefaults,
  syncNotices,
} from './notice-sync.js';
import { CATALOG_FEED, PIPELINES_FEED, syncCatalog, syncPipelines } from './reference-sync.js';
import { pruneOld, RETENTION_FEED, RETENTION_INTERVAL_MS } from './retention.js';
import type { Feed } from './scheduler.js';

export { CAPACITY_FEED };
export const PIPELINES_INTERVAL_MS = 86_400_000;
export const CATALOG_INTERVAL_MS = 3_600_000;

/** What the feeds work with: the syncs' own. */
export type FeedDeps = IngestDeps;

/** The schedule-relevant part of the configuration. */
export type FeedSettings = Pick<
  Config,
  | 'noticesIntervalMs'
  | 'capacityIntervalMs'
  | 'maxAlertAgeMs'
  | 'pipelines'
  | 'capacityPipelines'
  | 'baselinePages'
  | 'baselineAgeMs'
> & { pipelinesIntervalMs?: number; catalogIntervalMs?: number; retentionMs?: number };

/** The feeds' names and intervals; `run --once` runs them in this order, the daemon side by side. */
export function feedSchedule(settings: FeedSettings): Array<{ name: string; intervalMs: number }> {
  return [
    { name: PIPELINES_FEED, intervalMs: settings.pipelinesIntervalMs ?? PIPELINES_INTERVAL_MS },
    { name: CATALOG_FEED, intervalMs: settings.catalogIntervalMs ?? CATALOG_INTERVAL_MS },
    { name: NOTICES_FEED, intervalMs: settings.noticesIntervalMs },
    { name: CAPACITY_FEED, intervalMs: settings.capacityIntervalMs },
  ];
}

/**
 * Builds the feeds of `feedSchedule`. `plan` says what the capacity feed fetches; it is
 * asked at every run, so a rule change (hot reload) or a new pipeline list takes effect
 * at the next one. A changed plan is logged.
 */
export function buildFeeds(
  deps: FeedDeps,
  settings: FeedSettings,
  plan: () => Promise<CapacityPlan>,
): Feed[] {
  const noticeOptions: NoticeSyncOptions = {
    ...noticeSyncDefaults,
    maxAlertAgeMs: settings.maxAlertAgeMs,
    pipelines: settings.pipelines,
    baselinePages: settings.baselinePages,
    baselineMaxAgeMs: settings.baselineAgeMs,
  };
  const work: Record<string, Feed['run']> = {
    [PIPELINES_FEED]: (signal) => syncPipelines(deps, signal),
    [CATALOG_FEED]: (signal) => syncCatalog(deps, signal),
    [NOTICES_FEED]: (signal) => syncNotices(deps, noticeOptions, signal),
    [CAPACITY_FEED]: async (signal) => {
      const current = await plan();
      logPlanChange(current);
      return syncCapacity(deps, { pipelines: current.pipelines }, signal);
    },
  };
  let shown: string | undefined;
  const logPlanChange = (current: CapacityPlan) => {
    const lines = current.pipelines.map(describePlanned);
    const text = lines.join('\n');
    if (text === shown) return;
    shown = text;
    const cost = planRequestsPerHour(current, settings.capacityIntervalMs);
    deps.logger.info(
      {
        feed: CAPACITY_FEED,
        pipelines: current.pipelines.map((p) => p.slug),
        requests_per_hour: cost,
      },
      lines.length === 0
        ? `capacity: nothing to fetch (no capacity rule; ${CAPACITY_PIPELINES_VARIABLE} empty)`
        : `capacity plan: ${lines.length} pipeline${lines.length === 1 ? '' : 's'}, about ${cost} requests an hour: ${lines.join('; ')}`,
    );
  };
  const noticePolls = new NoticePollPlanner(deps, settings.noticesIntervalMs);
  const feeds: Feed[] = feedSchedule(settings).map((f) =>
    f.name === NOTICES_FEED
      ? { ...f, run: work[f.name], nextDelayMs: (now: Date) => noticePolls.nextDelayMs(now) }
      : { ...f, run: work[f.name] },
  );
  const retentionMs = settings.retentionMs ?? 0;
  if (retentionMs > 0)
    feeds.push({
      name: RETENTION_FEED,
      intervalMs: RETENTION_INTERVAL_MS,
      run: () => pruneOld(deps, retentionMs),
    });
  return feeds;
}

/** The capacity plan as `/status` and `pipewatch status --json` show it. */
export interface CapacityPlanReport {
  pipelines: Array<{
    slug: string;
    cycles: string[];
    requested_by: Array<{ by: string; cycles: string[] }>;
    /** Only there because a rule names no pipeline. */
    implicit: boolean;
    /** When the API last said it has no capacity data for this pipeline. */
    capacity_missing_at: string | null;
  }>;
  /** Rules naming no pipeline while the pipeline list is not stored yet. */
  waiting_for_pipeline_list: string[];
  requests_per_hour: number;
}

/** A chat channel whose subscriptions are paused (the bot was removed, or it was archived). */
export interface PausedChannel {
  /** `slack:C0GAS`; a subscription with no channel is listed by its target. */
  channel: string;
  subscriptions: number;
  /** When the first of them was paused. */
  paused_at: string;
  reason: string | null;
}

/** The subscriptions and silences stored, as `status` shows them. */
export interface SubscriptionsStatus {
  subscriptions: { total: number; paused: number; paused_channels: PausedChannel[] };
  silences: { in_force: number };
}

/** How many subscriptions there are and which channels are paused; how many silences are in force. */
export async function subscriptionsStatus(
  store: AsyncStore,
  now: Date,
): Promise<SubscriptionsStatus> {
  const byChannel = new Map<string, PausedChannel>();
  let total = 0;
  for (const s of await store.subscriptions.all()) {
    total++;
    if (s.paused_at === null) continue;
    const channel = s.channel ?? s.target;
    const seen = byChannel.get(channel);
    if (!seen) {
      byChannel.set(channel, {
        channel,
        subscriptions: 1,
        paused_at: s.paused_at,
        reason: s.paused_reason,
      });
      continue;
    }
    seen.subscriptions++;
    if (s.paused_at < seen.paused_at)
      Object.assign(seen, { paused_at: s.paused_at, reason: s.paused_reason });
  }
  const paused_channels = [...byChannel.values()].sort((a, b) =>
    a.channel.localeCompare(b.channel),
  );
  return {
    subscriptions: {
      total,
      paused: paused_channels.reduce((n, c) => n + c.subscriptions, 0),
      paused_channels,
    },
    silences: { in_force: (await store.silences.active(toUtcIso(now))).length },
  };
}

/** Everything `/status` and `pipewatch status --json` report. */
export interface StatusReport extends SubscriptionsStatus {
  generated_at: string;
  healthy: boolean;
  feeds: Array<
    FeedState & { interval_seconds: number | null; healthy: boolean | null; reason: string | null }
  >;
  counts: StoreCounts;
  /** What the capacity feed fetches; null when the rules are not known (invalid files). */
  capacity_plan: CapacityPlanReport | null;
  /** When the notice feed polls: the refresh pattern learned, or its interval; null when not scheduled. */
  notice_schedule: NoticeScheduleReport | null;
}

/** The plan in its report form, with what the store knows of each pipeline. */
export async function planReport(
  store: AsyncStore,
  plan: CapacityPlan,
  capacityIntervalMs: number,
): Promise<CapacityPlanReport> {
  const pipelines = [];
  for (const p of plan.pipelines)
    pipelines.push({
      slug: p.slug,
      cycles: ['latest', ...p.cycles],
      requested_by: p.requestedBy,
      implicit: p.implicit,
      capacity_missing_at: (await store.pipelines.bySlug(p.slug))?.capacity_missing_at ?? null,
    });
  return {
    pipelines,
    waiting_for_pipeline_list: plan.waitingForPipelineList,
    requests_per_hour: planRequestsPerHour(plan, capacityIntervalMs),
  };
}

/** Builds the status report from the store; `feeds` are the scheduled ones, if known. */
export async function statusReport(
  store: AsyncStore,
  now: Date,
  scheduled?: {
    feeds: ReadonlyArray<{ name: string; intervalMs: number }>;
    startedAt?: Date | undefined;
    capacityPlan?: CapacityPlanReport | null;
    /** The running scheduler's health, which knows of runs the database could not record. */
    health?: FeedsHealth | undefined;
  },
): Promise<StatusReport> {
  const states = await store.syncState.all();
  const health: FeedsHealth | undefined = scheduled
    ? (scheduled.health ?? assessHealth(scheduled.feeds, states, now, scheduled.startedAt))
    : undefined;
  const names = [
    ...new Set([...(scheduled?.feeds.map((f) => f.name) ?? []), ...states.map((s) => s.feed)]),
  ];
  const feeds = names.map((name) => {
    const state = states.find((s) => s.feed === name) ?? {
      feed: name,
      last_attempt_at: null,
      last_success_at: null,
      last_error: null,
      last_error_code: null,
      last_error_at: null,
      consecutive_failures: 0,
    };
    const feedHealth = health?.feeds.find((f) => f.feed === name);
    const interval = scheduled?.feeds.find((f) => f.name === name)?.intervalMs;
    return {
      ...state,
      interval_seconds: interval === undefined ? null : interval / 1000,
      healthy: feedHealth?.healthy ?? null,
      reason: feedHealth?.reason ?? null,
    };
  });
  const noticesInterval = scheduled?.feeds.find((f) => f.name === NOTICES_FEED)?.intervalMs;
  return {
    generated_at: toUtcIso(now),
    healthy: health?.healthy ?? feeds.every((f) => f.consecutive_failures === 0),
    feeds,
    counts: await storeCounts(store),
    capacity_plan: scheduled?.capacityPlan ?? null,
    notice_schedule:
      noticesInterval === undefined
        ? null
        : await noticeScheduleReport(store, now, noticesInterval),
    ...(await subscriptionsStatus(store, now)),
  };
}
