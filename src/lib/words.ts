/**
 * English that agrees with its numbers: `1 location`, `2 locations`. One helper, so a
 * count printed anywhere reads as a person would write it, whatever the count.
 */

/** `1 notice`, `0 notices`, `2 entries` (with `plural` for a noun not made by adding s). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
