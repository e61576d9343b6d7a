/**
 * "Did you mean" for rule files: the known word closest to a misspelt one, so that a typo
 * such as `slak` or `pipeline` is answered with the word the user meant, not only with a
 * list of every word allowed there.
 */

/**
 * Edit distance counting insertions, deletions, substitutions and swaps of two adjacent
 * letters (optimal string alignment): `slak` → `slack` is 1, `cyles` → `cycles` is 1.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2][j - 2] + 1);
      }
      d[i][j] = best;
    }
  }
  return d[a.length][b.length];
}

/** Case, spaces and `-` versus `_` are never what tells two keys apart. */
function normalise(word: string): string {
  return word
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/**
 * The candidate `word` was most likely meant to be, or `undefined` when none is close:
 * at most one edit for short words, one per three letters for longer ones.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  const w = normalise(word);
  if (w === '') return undefined;
  const limit = Math.max(1, Math.floor(w.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(w, normalise(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** ` — did you mean 'slack'?`, or nothing when no candidate is close. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const s = suggest(word, candidates);
  return s === undefined ? '' : ` — did you mean '${s}'?`;
}
