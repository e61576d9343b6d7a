/**
 * The branch of the webhook body schema (`body-schema.ts`) for the summary a silence
 * sends when it ends: what it muted, when, and the alerts it held back for this
 * destination, each with the kind and state it would have been sent with.
 */
import { z } from 'zod';
import type { AlertKind, AlertState } from '../../alerts/payload.js';
import { MAX_LISTED } from '../silence.js';
import { doc, pipeline, sentAt, text, utc, version } from './schema-parts.js';

/**
 * Every kind and state an alert has. `body.ts` passes each held alert's own on, so it
 * does not compile while one is missing here.
 */
const KINDS = [
  'notice',
  'deadline',
  'capacity',
  'operations',
  'silence',
] as const satisfies readonly AlertKind[];
const STATES = [
  'new',
  'updated',
  'reminder',
  'firing',
  'resolved',
  'schema-drift',
  'unknown-pipeline',
  'unknown-location',
  'channel-gone',
  'feed-stale',
  'feed-recovered',
  'target-dead',
  'target-recovered',
  'ended',
] as const satisfies readonly AlertState[];

const held = doc(
  z.strictObject({
    rule: text('The rule that decided it.'),
    kind: doc(z.enum(KINDS), 'The kind it would have been sent as.'),
    state: doc(z.enum(STATES), 'The state it would have been sent as.'),
    pipeline: text('Its pipeline slug.'),
    title: text('`Notice 26-0412: Station 85 compressor outage`, `OAC below 50,000 Dth at …`.'),
    notice_id: doc(z.int().nullable(), 'The API id of its notice, if it was about one.'),
    url: doc(z.string().nullable(), "The notice on the pipeline's site, when it has one."),
    at: utc('When the silence held it back.'),
  }),
  'An alert a silence held back, with the kind and state it would have been sent with.',
  'HeldAlert',
);

/** A silence ended: its summary for one destination. */
export const silenceEnded = doc(
  z.strictObject({
    version,
    kind: z.literal('silence'),
    state: z.literal('ended'),
    rule: text('`silence-<id>`: the summary comes from the silence, not from a rule file.'),
    pipeline,
    silence: z.strictObject({
      id: doc(z.int(), 'The silence.'),
      matchers: text('What it muted: `pipeline=transco target=slack:C0GAS`.'),
      started_at: utc('When it began.'),
      ended_at: utc('When it ended.'),
      ended_by: doc(
        z.enum(['expired', 'lifted']),
        '`expired`: its time ran out; `lifted`: someone ended it early.',
      ),
      held: doc(z.int().nonnegative(), 'How many alerts it held back for this destination.'),
      alerts: doc(
        z.array(held).max(MAX_LISTED),
        `The newest of them, at most ${MAX_LISTED}, newest first.`,
      ),
    }),
    sent_at: sentAt,
  }),
  'A silence ended: what it held back for this destination while it lasted, in one body.',
  'SilenceEnded',
);

/** A held alert as a webhook body carries it. */
export type WebhookHeldAlert = z.output<typeof held>;
