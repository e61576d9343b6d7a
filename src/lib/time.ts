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
