/**
 * Failures of the command line that are the user's input, not pipewatch: a file that is
 * missing, not JSON, or not in the expected form. Each carries one line per problem,
 * naming the file, the item and the field, so no stack trace or schema dump is printed.
 */

import type { ZodError } from 'zod';
import { errorCode } from '../lib/error-text.js';

/** Bad input to a command (exit status 2): one line per problem. */
export class BadInputError extends Error {
  readonly code = 'BAD_INPUT';
  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
    this.name = 'BadInputError';
  }
}

/** Most problems listed for one file before the rest are counted. */
const MAX_LINES = 10;

/**
 * One line per issue of a list validated item by item: `F.json: notice 2: missing
 * pipeline_id`, `F.json: notice 1: posted_at: not a datetime: "soon"`. `items` is the
 * raw list, to tell a missing field from a wrong one.
 */
export function itemProblems(
  file: string,
  noun: string,
  items: readonly unknown[],
  error: ZodError,
): string[] {
  const lines = error.issues.map((issue) => {
    const [index, field, ...rest] = issue.path;
    if (typeof index !== 'number') return `${file}: ${issue.message}`;
    const where = `${file}: ${noun} ${index + 1}`;
    if (field === undefined) return `${where}: ${issue.message}`;
    const item = items[index];
    const missing =
      rest.length === 0 &&
      typeof item === 'object' &&
      item !== null &&
      (item as Record<PropertyKey, unknown>)[field] === undefined;
    if (missing) return `${where}: missing ${String(field)}`;
    return `${where}: ${[field, ...rest].map(String).join('.')}: ${issue.message}`;
  });
  const unique = [...new Set(lines)];
  return unique.length > MAX_LINES
    ? [...unique.slice(0, MAX_LINES), `${file}: … and ${unique.length - MAX_LINES} more problems`]
    : unique;
}

/**
 * stdout or stderr can no longer be written. `OUTPUT_CLOSED`: its reader went away (a
 * pipe into `head`, EPIPE), and the command ends quietly; `OUTPUT_FAILED`: anything else
 * (a full disk), and the command fails.
 */
export class OutputGoneError extends Error {
  readonly code: 'OUTPUT_CLOSED' | 'OUTPUT_FAILED';
  constructor(
    readonly stream: 'stdout' | 'stderr',
    cause: Error,
  ) {
    const closed = errorCode(cause) === 'EPIPE';
    super(
      closed ? `${stream} was closed by its reader` : `cannot write to ${stream}: ${cause.message}`,
      {
        cause,
      },
    );
    this.name = 'OutputGoneError';
    this.code = closed ? 'OUTPUT_CLOSED' : 'OUTPUT_FAILED';
  }
}
