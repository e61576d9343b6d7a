/**
 * When a mute from chat holds: from now or a later `from`, for `for` or until `until`,
 * within a mute's bounds (1m to 30d, starting at most 30d ahead).
 */
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
  const nowMs = Date.parse(now);
  let start = input.from === undefined ? nowMs : Date.parse(input.from);
  if (start < nowMs - START_SLACK_MS)
    return { problem: `from ${input.from} is in the past; leave from out to start now` };
  start = Math.max(start, nowMs);
  if (start - nowMs > MUTE_MAX_MS)
    return {
      problem: `from ${input.from} is more than ${formatDuration(MUTE_MAX_MS)} ahead; mute nearer the time`,
    };
  const end = input.until === undefined ? start + (input.forMs ?? 0) : Date.parse(input.until);
  const ms = end - start;
  if (ms < MUTE_MIN_MS || ms > MUTE_MAX_MS)
    return {
      problem: `a mute lasts from ${formatDuration(MUTE_MIN_MS)} to ${formatDuration(MUTE_MAX_MS)}, and this one ${ms <= 0 ? `would end at ${input.until}, before it starts` : `would last ${formatDuration(ms)}`}`,
    };
  return { starts: toUtcIso(new Date(start)), ends: toUtcIso(new Date(end)), ms };
}
