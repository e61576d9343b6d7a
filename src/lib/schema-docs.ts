/**
 * Names and descriptions for the JSON Schemas pipewatch publishes (the webhook contract,
 * `docs/webhook.schema.json`), kept off zod's global registry. It sits below every layer
 * so that a part of the contract can be written, described, where its values are made
 * (what changed in a notice, in `alerts/`) and read from there by the contract and by
 * the check of what the outbox holds alike.
 */
import { z } from 'zod';
import { utcInstant } from './zod-checks.js';

/** The registry the JSON Schema is generated with. */
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
