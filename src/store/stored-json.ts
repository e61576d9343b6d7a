/**
 * JSON the store keeps in a column, read back through a schema instead of taken on trust:
 * a value damaged on disk, or written by an older pipewatch in a shape this one no longer
 * reads, is named (the row, the column, the field at fault) rather than let through to
 * fail somewhere far from where it was read.
 */
import type { z } from 'zod';
import { parseTarget, storedTargetSchema, type Target } from '../domain/targets.js';
import { issuePath } from '../lib/zod-checks.js';

/** What a stored JSON value reads as: the value, or why it cannot be read. */
export type StoredRead<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * The database holds a value pipewatch cannot read back: which, where, and what is
 * wrong. Its code is a database failure's (`DatabaseError`), for the command line.
 */
export class StoredDataError extends Error {
  override name = 'StoredDataError';
  readonly code = 'DATABASE';
}

/** Why a zod error refused a value, in one line: the first field at fault and what is wrong. */
export function schemaProblem(error: z.ZodError): string {
  const [issue] = error.issues;
  if (!issue) return 'is not valid';
  const where = issuePath(issue.path);
  return `${where ? `${where}: ` : ''}${issue.message}`;
}

/** The JSON `text` parsed, or why it is not JSON. */
export function readJson(text: string): StoredRead<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: `is not JSON (${why.slice(0, 120)})` };
  }
}

/** The JSON `text` read through `schema`, or why it cannot be. */
export function readStored<S extends z.ZodType>(schema: S, text: string): StoredRead<z.output<S>> {
  const json = readJson(text);
  if (!json.ok) return json;
  const result = schema.safeParse(json.value);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, problem: `is not what pipewatch stores there: ${schemaProblem(result.error)}` };
}

/**
 * The JSON `text` read through `schema`; throws `StoredDataError` naming `where` (`the
 * matchers of silence 12`) when it cannot be.
 */
export function parseStored<S extends z.ZodType>(
  schema: S,
  text: string,
  where: string,
): z.output<S> {
  const read = readStored(schema, text);
  if (read.ok) return read.value;
  throw new StoredDataError(`the database holds ${where}, which ${read.problem}`);
}

/**
 * A stored target: its JSON, or failing that the key it is filed under (`targetKey` is a
 * target written on one line, which `parseTarget` reads back).
 */
export function readStoredTarget(json: string, key: string): StoredRead<Target> {
  const read = readStored(storedTargetSchema, json);
  if (read.ok) return read;
  try {
    return { ok: true, value: parseTarget(key) };
  } catch {
    return { ok: false, problem: `its target ${read.problem}` };
  }
}
