/**
 * Sizes as people write them in configuration: `20MB`, `512KB`, `1.5GB`, `65536B`, and the
 * binary `MiB` forms. `KB`, `MB` and `GB` are powers of 1,000, `KiB`, `MiB` and `GiB`
 * powers of 1,024, as their standards say.
 */

const UNIT_BYTES: Record<string, number> = {
  b: 1,
  kb: 1_000,
  mb: 1_000_000,
  gb: 1_000_000_000,
  kib: 1_024,
  mib: 1_048_576,
  gib: 1_073_741_824,
};

/** Bytes of a size text, or `undefined` when it is not one. */
export function parseByteSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]i?b|b)$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = UNIT_BYTES[m[2].toLowerCase()];
  return unit === undefined ? undefined : Math.round(Number(m[1]) * unit);
}

/** A size for messages: `20 MB`, `1.5 MB`, `512 KB`, `900 B` (powers of 1,000). */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of [
    ['GB', 1e9],
    ['MB', 1e6],
    ['KB', 1e3],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} B`;
}
