/**
 * The pieces every branch of the webhook body schema (`body-schema.ts`) shares: the
 * registry of names and descriptions the JSON Schema is generated with, instants in
 * UTC seconds, the pipeline, the version and `sent_at`. Kept apart so a branch can live
 * in a file of its own (`silence-schema.ts`) and still read as the others do.
 */
import { z } from 'zod';
import { utcInstant } from '../../lib/zod-checks.js';

/** Names and descriptions for the JSON Schema, kept off zod's global registry. */
export const docs = z.registry<{ id?: string; title?: string; description?: string }>();

/** `schema`, described (and, with `id`, named) in the JSON Schema. */
export function doc<T extends z.ZodType>(schema: T, description: string, id?: string): T {
  docs.add(schema, id === undefined ? { description } : { id, description });
  return schema;
}

/** `2026-11-20T14:00:00Z`: pipewatch writes every instant so, in UTC, to the second. */
export const instant = utcInstant;
/** A described instant. */
export const utc = (description: string) => doc(instant(), description);
/** A described instant, or `null`. */
export const utcOrNull = (description: string) => doc(instant().nullable(), description);
/** A described string. */
export const text = (description: string) => doc(z.string(), description);
/** A described quantity in Dth, or `null`. */
export const quantity = (description: string) => doc(z.number().nullable(), description);

/** `pipeline`, in every branch. */
export const pipeline = doc(
  z.strictObject({
    slug: text(
      "`transco`; `api` for schema drift and the API's feeds, `rules` for an unknown " +
        'pipeline, `pipewatch` and `delivery` for its own outages, `all` for a silence over ' +
        'every pipeline.',
    ),
    name: text('Display name: `Transcontinental Gas Pipe Line (Transco)`.'),
  }),
  'The pipeline the alert is about.',
  'Pipeline',
);

/** `sent_at`, in every branch. */
export const sentAt = utc('When pipewatch sent this body.');
/** `version`, in every branch. */
export const version = doc(z.literal(1), 'The payload version.');
