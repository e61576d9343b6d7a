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
