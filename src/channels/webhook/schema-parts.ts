/**
 * The pieces every branch of the webhook body schema (`body-schema.ts`) shares: the
 * registry of names and descriptions the JSON Schema is generated with and its helpers
 * (from `lib/schema-docs.ts`), the pipeline, the version and `sent_at`. Kept apart so a branch can live
 * in a file of its own (`silence-schema.ts`) and still read as the others do.
 */
import { z } from 'zod';
import { doc, text, utc } from '../../lib/schema-docs.js';

export { doc, docs, instant, quantity, text, utc, utcOrNull } from '../../lib/schema-docs.js';

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
