/**
 * Output helpers shared by commands: aligned text tables for people and JSON for
 * scripts (ISO 8601 UTC datetimes, `null` for absent ones, numbers for quantities). Every
 * cell of a table is one line: a line break in it is shown as `\n` (`inlineText`), so no
 * field can print a row of its own.
 */
import { escapeJsonForTerminal, inlineText } from '../lib/terminal.js';

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

/** The cells of rows as a table shows them: each on one line. */
const cellsOf = (rows: string[][]): string[][] => rows.map((r) => r.map(inlineText));

/** Renders rows under a header as aligned columns separated by two spaces. */
export function table(header: string[], given: string[][], align: Align[] = []): string {
  const rows = cellsOf(given);
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

/**
 * A table printed as its rows arrive (a page at a time): the header and the first rows
 * aligned as `table` aligns them, a column widened for later rows that need it. Printed
 * in one go, it is `table`'s output line for line.
 */
export class StreamedTable {
  private widths: number[] | undefined;

  constructor(
    private readonly print: (line: string) => void,
    private readonly header: string[],
    private readonly align: Align[] = [],
  ) {}

  /** Prints rows, after the header the first time. */
  add(given: string[][]): void {
    const rows = cellsOf(given);
    const widths = this.header.map((h, i) =>
      Math.max(this.widths?.[i] ?? h.length, ...rows.map((r) => (r[i] ?? '').length)),
    );
    const first = this.widths === undefined;
    this.widths = widths;
    if (first) {
      this.print(this.line(this.header));
      this.print(this.line(widths.map((w) => '-'.repeat(w))));
    }
    for (const row of rows) this.print(this.line(row));
  }

  /** Prints the header if no row came. */
  end(): void {
    if (this.widths === undefined) this.add([]);
  }

  private line(cells: string[]): string {
    const widths = this.widths ?? [];
    return cells
      .map((c, i) =>
        this.align[i] === 'right' ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd();
  }
}

/**
 * A JSON array printed an item at a time, as the items arrive: the same text `toJson`
 * prints for the whole array, so a reader that stops early (`| head`) stops the work.
 */
export class StreamedJsonArray {
  private held: string | undefined;
  private started = false;

  constructor(private readonly print: (line: string) => void) {}

  add(item: unknown): void {
    if (!this.started) this.print('[');
    this.started = true;
    // Each item is printed once the next arrives, with the comma between them.
    if (this.held !== undefined) this.print(`${this.held},`);
    this.held = toJson(item).replace(/^/gm, '  ');
  }

  end(): void {
    if (!this.started) {
      this.print('[]');
      return;
    }
    this.print(this.held ?? '');
    this.print(']');
  }
}
