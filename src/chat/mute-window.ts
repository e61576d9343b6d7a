/**
 * When a mute from chat holds: from now or a later `from`, for `for` or until `until`,
 * within a mute's bounds (1m to 30d, starting at most 30d ahead).
 */
import { timeWindow } from '../domain/time-window.js';
import { formatDuration } from '../lib/duration.js';
import { toUtcIso, type UtcIso } from '../lib/time.js';
import { MUTE_MAX_MS, MUTE_MIN_MS } from './commands.js';

/** A start typed a moment ago is taken as now; earlier, the time was likely mistyped. */
const START_SLACK_MS = 5 * 60_000;

/** A mute's start and end, and how long it lasts, or what is wrong with the times given. */
export type MuteWindow = { starts: UtcIso; ends: UtcIso; ms: number } | { problem: string };

/** The window of `from`, `for` and `until` at `now`. */
export function muteWindow(
  now: UtcIso,
  input: { forMs?: number | undefined; from?: UtcIso | undefined; until?: UtcIso | undefined },
): MuteWindow {
  const w = timeWindow(
    Date.parse(now),
    {
      start: input.from === undefined ? undefined : Date.parse(input.from),
      durationMs: input.forMs ?? 0,
      end: input.until === undefined ? undefined : Date.parse(input.until),
    },
    { minMs: MUTE_MIN_MS, maxMs: MUTE_MAX_MS, maxAheadMs: MUTE_MAX_MS, slackMs: START_SLACK_MS },
  );
  switch (w.problem) {
    case 'past':
      return { problem: `from ${input.from} is in the past; leave from out to start now` };
    case 'ahead':
      return {
        problem: `from ${input.from} is more than ${formatDuration(MUTE_MAX_MS)} ahead; mute nearer the time`,
      };
    case 'length':
      return {
        problem: `a mute lasts from ${formatDuration(MUTE_MIN_MS)} to ${formatDuration(MUTE_MAX_MS)}, and this one ${w.ms <= 0 ? `would end at ${input.until}, before it starts` : `would last ${formatDuration(w.ms)}`}`,
      };
    case undefined:
      return { starts: toUtcIso(new Date(w.start)), ends: toUtcIso(new Date(w.end)), ms: w.ms };
  }
}
