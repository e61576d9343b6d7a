/**
 * When something that holds for a while holds (a silence, a mute): from now or a later
 * start, for a duration or until an end, within bounds. The logic is one; the words are
 * each caller's (the command line speaks of `--start`, chat of `from`), so what is wrong
 * comes back as a kind with its figures, for the caller to say.
 */

/** How a window is bounded. */
export interface WindowBounds {
  /** The shortest window; default any length above nothing. */
  minMs?: number;
  maxMs: number;
  /** How far ahead it may start. */
  maxAheadMs: number;
  /** A start this little in the past is taken as now (the minute typed a moment ago). */
  slackMs: number;
}

/** A window, or what is wrong with the times asked, with the figures to say it. */
export type TimeWindow =
  | { problem?: undefined; start: number; end: number; ms: number }
  | { problem: 'past'; start: number }
  | { problem: 'ahead'; start: number }
  | { problem: 'length'; start: number; end: number; ms: number };

/** The window of `start` (default now), then `durationMs` or `end`, at `now`; all in ms. */
export function timeWindow(
  now: number,
  asked: { start?: number | undefined; durationMs: number; end?: number | undefined },
  bounds: WindowBounds,
): TimeWindow {
  const start = asked.start ?? now;
  if (start < now - bounds.slackMs) return { problem: 'past', start };
  const from = Math.max(start, now);
  if (from - now > bounds.maxAheadMs) return { problem: 'ahead', start };
  const end = asked.end ?? from + asked.durationMs;
  const ms = end - from;
  if (ms <= 0 || ms < (bounds.minMs ?? 0) || ms > bounds.maxMs)
    return { problem: 'length', start: from, end, ms };
  return { start: from, end, ms };
}
