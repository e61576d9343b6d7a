/**
 * Instants as pipewatch writes them everywhere: in the database, in JSON output and in
 * payloads.
 */

/** A UTC instant written `YYYY-MM-DDTHH:MM:SSZ`; lexical order is time order. */
export type UtcIso = string;

/** Formats an instant as `YYYY-MM-DDTHH:MM:SSZ` (no milliseconds), the project's JSON form. */
export function toUtcIso(date: Date): UtcIso {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** An instant as people type it: a date, a time to the minute or finer, and its zone. */
const ZONED_INSTANT =
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * `2026-12-01T09:00-06:00` or `2026-12-01T15:00Z` as an instant; undefined for anything
 * else, a time without its zone included: whose 9:00 it is must not be a guess.
 */
export function parseZonedInstant(text: string): Date | undefined {
  const t = text.trim();
  if (!ZONED_INSTANT.test(t)) return undefined;
  const at = new Date(t.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(at.getTime()) ? undefined : at;
}
