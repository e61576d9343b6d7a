/**
 * The median of a benchmark's runs: the middle value, the upper of the two middle ones
 * when there is an even number of them, so that it is always one run's own figure.
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
