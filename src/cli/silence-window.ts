/**
 * When a silence from the command line holds: from now or a later `--start`, for `--for`
 * or until `--end`, within the bounds a silence has.
 */
import { timeWindow } from '../domain/time-window.js';
import { formatDuration } from '../lib/duration.js';
import { toUtcIso, type UtcIso } from '../lib/time.js';

/** How far back `silence list` shows silences that ended: its help says it, its action reads it. */
export const RECENTLY_ENDED_MS = 86_400_000;

/** How long a silence lasts unless `--for` or `--end` says otherwise: amtool's default. */
export const DEFAULT_SILENCE_MS = 3_600_000;

/** The longest silence: past this, remove the rule or the subscription instead. */
export const MAX_SILENCE_MS = 90 * 86_400_000;

/** How far ahead a silence may start: planned maintenance is known weeks, not seasons, ahead. */
export const MAX_START_AHEAD_MS = 90 * 86_400_000;

/**
 * How far in the past `--start` may be and still be taken (as now): the minute typed a
 * moment ago. Earlier, the time was likely mistyped.
 */
const START_SLACK_MS = 5 * 60_000;

/** A silence's start and end, and how long it lasts, or the problem with what was asked. */
export type SilenceWindow = { startsAt: UtcIso; endsAt: UtcIso; ms: number } | { problem: string };

const at = (ms: number) => toUtcIso(new Date(ms));

/** The window of `--start`, `--for` and `--end` at `now`. */
export function silenceWindow(
  now: Date,
  opts: { start?: Date | undefined; for?: number | undefined; end?: Date | undefined },
): SilenceWindow {
  const w = timeWindow(
    now.getTime(),
    {
      start: opts.start?.getTime(),
      durationMs: opts.for ?? DEFAULT_SILENCE_MS,
      end: opts.end?.getTime(),
    },
    { maxMs: MAX_SILENCE_MS, maxAheadMs: MAX_START_AHEAD_MS, slackMs: START_SLACK_MS },
  );
  switch (w.problem) {
    case 'past':
      return {
        problem: `--start ${at(w.start)} is in the past; a silence starts now at the earliest (leave --start out)`,
      };
    case 'ahead':
      return {
        problem: `--start ${at(w.start)} is more than ${formatDuration(MAX_START_AHEAD_MS)} ahead; make the silence nearer the time`,
      };
    case 'length':
      return {
        problem:
          w.ms <= 0
            ? `--end ${at(w.end)} is not after the start, ${at(w.start)}`
            : `${formatDuration(w.ms)} from ${at(w.start)} to ${at(w.end)} is longer than ${formatDuration(MAX_SILENCE_MS)}, the longest silence; remove the rule or subscription instead`,
      };
    case undefined:
      return { startsAt: at(w.start), endsAt: at(w.end), ms: w.ms };
  }
}
