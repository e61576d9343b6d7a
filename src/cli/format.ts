/**
 * Output helpers shared by commands: aligned text tables for people and JSON for
 * scripts (ISO 8601 UTC datetimes, `null` for absent ones, numbers for quantities).
 */
import { escapeJsonForTerminal } from '../lib/terminal.js';

/**
 * Pretty JSON, as every `--json` output prints it; characters a terminal would act on
 * (C1 controls, bidirectional overrides) are `\u` escapes, so the output is safe to read
 * on a terminal and parses to the same value.
 */
export function toJson(value: unknown): string {
  return escapeJsonForTerminal(JSON.stringify(value, null, 2));
}

/** Shortens text to `width` characters on one line. */
export function clip(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > width ? `${line.slice(0, Math.max(0, width - 1))}…` : line;
}

/** Column alignment. */
export type Align = 'left' | 'right';

/** Renders rows under a header as aligned columns separated by two spaces. */
export function table(header: string[], rows: string[][], align: Align[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (align[i] === 'right' ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** A UTC datetime as `2026-11-20 14:05Z`, or `-`. */
export function when(iso: string | null): string {
  return iso === null ? '-' : `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`;
}
