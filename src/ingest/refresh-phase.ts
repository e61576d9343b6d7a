/**
 * When to poll for notices: the API publishes them in refreshes (about every 10 minutes,
 * every minute for enterprise accounts), so a poll just after each refresh sees every
 * notice within seconds on few requests. The refresh period and phase are learned from
 * the stored notices: the `service_created_at` of each is the refresh that showed it. With
 * no clear pattern, the caller keeps its plain interval.
 */
import { counted } from '../lib/words.js';
import type { RefreshObservation } from '../store/refresh-observations.js';

/** Tuning of the estimate and the poll plan, declared once. */
export const refreshPhaseDefaults = {
  /** The periods tried, longest first: the spec's 10 minutes and the enterprise minute. */
  candidatesMs: [600_000, 60_000] as readonly number[],
  /** Only notices first seen (baseline: created) this recently count… */
  lookbackMs: 24 * 3_600_000,
  /** …and of their refresh instants, the newest this many, so a shifted phase is followed. */
  observations: 16,
  /** Fewer refreshes than this: no pattern yet. */
  minObservations: 8,
  /** This share of the refreshes must fall within one window of the period… */
  share: 0.8,
  /** …no wider than this share of it. */
  maxSpread: 0.2,
  /** Poll this long after the expected refresh, for it to be served everywhere. */
  marginMs: 5_000,
  /** The follow-up waits this long after the latest refresh seen: a refresh may land later than any seen yet. */
  lateMarginMs: 15_000,
  /** Periods at least this long get a follow-up poll when the refresh is late; shorter ones poll once, at the window's end. */
  followUpMinPeriodMs: 300_000,
  /** A poll closer than this to the one just run counts as that one. */
  slackMs: 5_000,
} as const;

/** Tuning, as `refreshPhaseDefaults`. */
export type RefreshPhaseOptions = typeof refreshPhaseDefaults;

/** A learned refresh pattern: refreshes land within `[start, start + spread]` of each period. */
export interface RefreshLock {
  periodMs: number;
  /** Offset of the window's start from the period's epoch-aligned slot. */
  startMs: number;
  spreadMs: number;
  /** Median offset of the refreshes within the window. */
  typicalMs: number;
  /** Distinct refresh instants it rests on. */
  observed: number;
}

/**
 * Estimates the refresh pattern from observations, or null when none holds: too few, a
 * `service_created_at` that does not match when the notice was seen (an API that dates
 * notices otherwise), or instants scattered over every candidate period.
 * `maxLagMs`: a notice found new first seen longer than this after its creation says
 * nothing of when refreshes happen (pipewatch was down, or a deep scan found it). The
 * baseline's notices were not seen appear, so only the clustering can vouch for their
 * instants; they let a fresh database lock at its first sync, and the newest instants,
 * found new or not, decide.
 */
export function estimateRefresh(
  observations: readonly RefreshObservation[],
  maxLagMs: number,
  options: RefreshPhaseOptions = refreshPhaseDefaults,
): RefreshLock | null {
  const instants: number[] = [];
  const seen = new Set<number>();
  for (const o of observations) {
    const created = Date.parse(o.createdAt);
    const lag = Date.parse(o.firstSeenAt) - created;
    if (!Number.isFinite(lag) || lag < -options.slackMs) continue;
    if (!o.baseline && lag > maxLagMs) continue;
    if (seen.has(created)) continue;
    seen.add(created);
    instants.push(created);
  }
  const recent = instants.sort((a, b) => b - a).slice(0, options.observations);
  if (recent.length < options.minObservations) return null;
  for (const periodMs of options.candidatesMs) {
    const lock = cluster(recent, periodMs, options);
    if (lock) return lock;
  }
  return null;
}

/** The narrowest window of the period holding `share` of the instants, if narrow enough. */
function cluster(
  instants: readonly number[],
  periodMs: number,
  options: RefreshPhaseOptions,
): RefreshLock | null {
  const phases = instants.map((t) => mod(t, periodMs)).sort((a, b) => a - b);
  const n = phases.length;
  const size = Math.ceil(options.share * n);
  let best: { start: number; spread: number; first: number } | undefined;
  for (let i = 0; i < n; i++) {
    const last = phases[(i + size - 1) % n];
    const spread = mod(last - phases[i], periodMs);
    if (!best || spread < best.spread) best = { start: phases[i], spread, first: i };
  }
  const widest = options.maxSpread * periodMs;
  if (!best || best.spread > widest) return null;
  const offsets = Array.from({ length: size }, (_, k) =>
    mod(phases[(best.first + k) % n] - best.start, periodMs),
  );
  // The window reaches to the latest refresh seen within its widest, so a late one is waited for.
  const start = best.start;
  const spread = Math.max(
    ...phases.map((p) => mod(p - start, periodMs)).filter((offset) => offset <= widest),
  );
  return {
    periodMs,
    startMs: start,
    spreadMs: spread,
    typicalMs: offsets[Math.floor((size - 1) / 2)],
    observed: n,
  };
}

/**
 * When to poll next after a run at `now`: just after the typical refresh instant of the
 * current period; if that poll has passed and this period's refresh has not shown up
 * (`refreshSeen` false: no notice created in it yet), once more just after the latest
 * the refresh was seen to land; else just after the next period's typical instant.
 * Short periods poll once, at the window's end. Returns an instant (ms).
 */
export function nextPollAt(
  now: number,
  lock: RefreshLock,
  refreshSeen: (windowStart: number) => boolean,
  options: RefreshPhaseOptions = refreshPhaseDefaults,
): number {
  const { periodMs, startMs, spreadMs } = lock;
  const windowStart = now - mod(now - startMs, periodMs);
  const followUp = periodMs >= options.followUpMinPeriodMs;
  const first = followUp
    ? windowStart + lock.typicalMs + options.marginMs
    : windowStart + spreadMs + options.lateMarginMs;
  const late = windowStart + spreadMs + options.lateMarginMs;
  if (now < first - options.slackMs) return first;
  if (followUp && now < late - options.slackMs && !refreshSeen(windowStart)) return late;
  return first + periodMs;
}

/** Describes a lock for the log: `every 10 min, 0–85 s past each slot`. */
export function describeLock(lock: RefreshLock): string {
  const period =
    lock.periodMs % 60_000 === 0 ? `${lock.periodMs / 60_000} min` : `${lock.periodMs / 1000} s`;
  const from = Math.round(lock.startMs / 1000);
  const to = Math.round((lock.startMs + lock.spreadMs) / 1000);
  return `every ${period}, ${from}–${to} s into each period (from ${counted(lock.observed, 'refresh', 'refreshes')})`;
}

function mod(a: number, m: number): number {
  return ((a % m) + m) % m;
}
