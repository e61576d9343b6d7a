/**
 * Maps used as memories of a bounded size (the latest messages, the latest notices): a
 * `Map` keeps its keys in the order they were set, so the first are the oldest.
 */

/** Forgets the oldest entries of `map` until it holds at most `limit`. */
export function keepNewest<K, V>(map: Map<K, V>, limit: number): void {
  for (const oldest of map.keys()) {
    if (map.size <= limit) return;
    map.delete(oldest);
  }
}
