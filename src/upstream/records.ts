/**
 * Parses the `data` of a response record by record, so that one malformed record costs
 * that record only: it is skipped and reported with its id and the field at fault, and
 * the rest of the page arrives.
 */
import type { z } from 'zod';
import { issuePath } from '../lib/zod-checks.js';
import { type RequestContext, SchemaError } from './errors.js';
import { PREVIEW_CHARS, preview } from './preview.js';

/** A record that was skipped, and why. */
export interface RecordIssue {
  /** Path below `/api/v1` of the response it came in. */
  endpoint: string;
  /** Where it sat in the response, e.g. `data[3]` or `data.locations[12]`. */
  location: string;
  /** The record's own id when it had a readable one. */
  id: number | string | null;
  /** Dotted path of the field at fault inside the record. */
  field: string;
  message: string;
}

/** Parses a whole value that must be valid, or throws `SchemaError` naming the field. */
export function parseStrict<S extends z.ZodType>(
  schema: S,
  value: unknown,
  context: RequestContext,
  prefix: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = [prefix, issue ? issuePath(issue.path) : '']
    .filter(Boolean)
    .join('.')
    .replace('.[', '[');
  throw new SchemaError(`unexpected response: ${field}: ${issue?.message ?? 'invalid'}`, {
    context,
    field,
  });
}

/** Parses each item of an array; returns the good records and an issue per bad one. */
export function parseRecords<S extends z.ZodType>(
  schema: S,
  items: unknown,
  context: RequestContext,
  location: string,
): { records: z.output<S>[]; skipped: RecordIssue[] } {
  if (!Array.isArray(items)) {
    throw new SchemaError(
      `unexpected response: ${location}: expected an array, got ${describe(items)}`,
      {
        context,
        field: location,
      },
    );
  }
  const records: z.output<S>[] = [];
  const skipped: RecordIssue[] = [];
  items.forEach((item, index) => {
    const result = schema.safeParse(item);
    if (result.success) {
      records.push(result.data);
      return;
    }
    const issue = result.error.issues[0];
    const rawId = (item as { id?: unknown } | null)?.id;
    skipped.push({
      endpoint: context.endpoint,
      location: `${location}[${index}]`,
      id:
        typeof rawId === 'number' || (typeof rawId === 'string' && rawId.length <= PREVIEW_CHARS)
          ? rawId
          : typeof rawId === 'string'
            ? preview(rawId)
            : null,
      field: issue ? issuePath(issue.path) || '(record)' : '(record)',
      message: issue?.message ?? 'invalid record',
    });
  });
  return { records, skipped };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}
