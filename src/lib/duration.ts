/**
 * Durations as people write them in configuration and rule files: `90s`, `10m`, `24h`,
 * `2d`, and combinations such as `1h30m`.
 */

const UNIT_MS = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
} as const;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;

/** Milliseconds of a duration text, or `undefined` when it is not one. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === '') return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let m = PART.exec(trimmed); m !== null; m = PART.exec(trimmed)) {
    total += Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
    consumed = PART.lastIndex;
  }
  return consumed === trimmed.length ? Math.round(total) : undefined;
}

/** The shortest exact text for a duration: 600000 → `10m`, 5400000 → `1h30m`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = ms;
  let out = '';
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const size = UNIT_MS[unit];
    const count = Math.floor(rest / size);
    if (count > 0) {
      out += `${count}${unit}`;
      rest -= count * size;
    }
  }
  return out;
}

/**
 * How long is left, for people reading an alert: `1 h 30 min`, `45 min`, `2 days 3 h`,
 * `30 s`. Under an hour it keeps seconds (`44 min 53 s`); from an hour on it is rounded
 * to the minute, since seconds there are noise. Never negative: a time already past is
 * `0 s`.
 */
export function formatTimeLeft(ms: number): string {
  const seconds = Number.isFinite(ms) && ms > 0 ? Math.round(ms / 1000) : 0;
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) {
    const s = seconds % 60;
    return `${Math.floor(seconds / 60)} min${s > 0 ? ` ${s} s` : ''}`;
  }
  const minutes = Math.round(seconds / 60);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  const parts: string[] = [];
  if (days > 0) parts.push(`${days} day${days === 1 ? '' : 's'}`);
  if (hours > 0) parts.push(`${hours} h`);
  if (rest > 0) parts.push(`${rest} min`);
  return parts.join(' ');
}

/**
 * When something falls due, for people reading an alert: `in 2 h 10 min`, or `now` once
 * less than half a second is left (a figure of `0 s` reads as a fault). The one wording
 * of a reminder's deadline and of the next nomination cycle, so alerts say time alike.
 */
export function inTimeLeft(ms: number): string {
  return Number.isFinite(ms) && ms >= 500 ? `in ${formatTimeLeft(ms)}` : 'now';
}
