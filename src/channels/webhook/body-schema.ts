/**
 * The webhook body, version 1, as one zod schema: the contract receivers code against.
 * It gives the `WebhookBody` type the channel builds (`body.ts`), the check the tests
 * hold every body to, and `docs/webhook.schema.json` (JSON Schema draft 2020-12), so the
 * three cannot disagree. One branch per state (each state belongs to one kind), every
 * object closed: a field appears in a body only once it is written here.
 *
 * Regenerate the JSON Schema with `node --import tsx scripts/webhook-schema.ts`.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { noticeChangeSchema, supersededNoticeSchema } from '../../alerts/notice-change-schema.js';
import { operationsBranches } from './operations-schema.js';
import {
  doc,
  docs,
  instant,
  pipeline,
  quantity,
  sentAt,
  text,
  utc,
  utcOrNull,
  version,
} from './schema-parts.js';
import { silenceEnded } from './silence-schema.js';

/** Where the generated JSON Schema is committed. */
export const WEBHOOK_SCHEMA_FILE = fileURLToPath(
  new URL('../../../docs/webhook.schema.json', import.meta.url),
);

const notice = doc(
  z.strictObject({
    id: doc(z.int(), 'The API id of the notice.'),
    pipeline_id: z.int(),
    pipeline_name: z.string(),
    pipeline_slug: z.string(),
    pipeline_url: z.string(),
    subject: z.string(),
    identifier: text("The pipeline's own notice number: `26-0412`."),
    url: text("Link to the notice on the pipeline's site, as the API gave it; may be empty."),
    category: text('`Critical`, `Non-Critical`, …, as the pipeline wrote it.'),
    type: text('`Capacity Constraint`, `Operational Flow Order`, …'),
    status: text('`Initiate`, `Supersede`, `Terminate`, …'),
    notice: text('The notice text; may be empty when only `html` is given.'),
    html: z.string(),
    mobile: z.string(),
    posted_at: utcOrNull('When the pipeline posted it.'),
    effective_at: utcOrNull('When it takes effect.'),
    end_at: utcOrNull(
      'When it ends; null when it has no end, or when the pipeline gave a placeholder far in the future for "until further notice" (then `open_ended` is true).',
    ),
    open_ended: doc(
      z.boolean(),
      'The pipeline gave a placeholder end far in the future (`9000-12-31`, or 20 years or more after posting) for "until further notice"; `end_at` is then null.',
    ),
    response_at: utcOrNull('When a response is due.'),
    service_created_at: utcOrNull('When the API created its record.'),
    service_updated_at: utcOrNull('When the API last updated its record.'),
    content_hash: text('Stored bookkeeping, sent on reminders: hash of the version.').optional(),
    version: doc(z.int(), 'Stored bookkeeping, sent on reminders: 1, then +1 a change.').optional(),
    first_seen_at: utc('Stored bookkeeping, sent on reminders.').optional(),
    last_seen_at: utc('Stored bookkeeping, sent on reminders.').optional(),
    last_changed_at: utc('Stored bookkeeping, sent on reminders.').optional(),
    baseline: doc(z.boolean(), 'Stored bookkeeping, sent on reminders.').optional(),
  }),
  'Every field of the normalised notice, times in UTC. A reminder also carries what ' +
    'pipewatch keeps about the stored notice (`content_hash` to `baseline`).',
  'Notice',
);

const location = doc(
  z.strictObject({
    id: z.int(),
    location: text('Location name: `STATION 85`.'),
    identifier: text('Location id: `1001234`.'),
    flow: text('`D` delivery, `R` receipt, …'),
    qti: z.string(),
    zone: z.string(),
    dc: quantity('Design capacity, Dth.'),
    opc: quantity('Operating capacity, Dth.'),
    tsq: quantity('Total scheduled quantity, Dth.'),
    oac: quantity('Operationally available capacity, Dth.'),
    it: z.string(),
    all: z.string(),
    reason: z.string(),
    service_created_at: instant().nullable(),
    service_updated_at: instant().nullable(),
    threshold: doc(z.number(), 'The rule fires below this (Dth, or % of OPC).'),
    clear_above: doc(z.number(), 'The rule resolves above this (same unit).'),
    unit: doc(z.enum(['absolute', 'percent']), 'Unit of `threshold` and `clear_above`.'),
    repeat: doc(
      z.literal(true),
      'Still below the threshold since an earlier alert (`repeat_every`).',
    ).optional(),
  }),
  "One location's capacity entry with the rule's levels.",
  'CapacityLocation',
);

const noticeNew = doc(
  z.strictObject({
    version,
    kind: z.literal('notice'),
    state: z.literal('new'),
    rule: text('The rule that matched.'),
    pipeline,
    notice,
    changes: doc(
      z.array(noticeChangeSchema),
      'Present when the notice supersedes a stored one (`supersedes`): what differs from it, in reading order.',
    ).optional(),
    supersedes: supersededNoticeSchema.optional(),
    sent_at: sentAt,
  }),
  'A notice new to pipewatch matched a notice rule.',
  'NoticeNew',
);

const noticeUpdated = doc(
  z.strictObject({
    version,
    kind: z.literal('notice'),
    state: z.literal('updated'),
    rule: text('The rule that matched (`on: [updated]`).'),
    pipeline,
    notice,
    changed: doc(
      z.array(z.string()),
      'The notice fields whose values changed, by their API names (every field, `html` and `service_updated_at` too).',
    ),
    changes: doc(
      z.array(noticeChangeSchema),
      'What changed as a reader sees it, in reading order: values, times, the words of the text. Empty when only fields no reader looks at changed (`html`, `mobile`, `service_updated_at`).',
    ),
    supersedes: supersededNoticeSchema.optional(),
    sent_at: sentAt,
  }),
  'A notice already seen changed, and a rule with `on: [updated]` matched it.',
  'NoticeUpdated',
);

const reminder = doc(
  z.strictObject({
    version,
    kind: z.literal('deadline'),
    state: z.literal('reminder'),
    rule: text('The deadline rule.'),
    pipeline,
    notice,
    deadline: doc(
      z.strictObject({
        field: doc(z.enum(['response_at', 'effective_at', 'end_at']), 'The notice field.'),
        at: utc('The deadline.'),
        before: text('The offset of this reminder, as the rule wrote it: `2h`, `1d`.'),
        late: doc(z.literal(true), 'Came due while it could not be sent.').optional(),
      }),
      "Which deadline, and which of the rule's reminders this is.",
    ),
    sent_at: sentAt,
  }),
  "A reminder before a notice's deadline.",
  'DeadlineReminder',
);

const capacity = doc(
  z.strictObject({
    version,
    kind: z.literal('capacity'),
    state: doc(
      z.enum(['firing', 'resolved']),
      '`firing`: OAC went below the threshold; `resolved`: back above `clear_above`.',
    ),
    rule: text('The capacity rule.'),
    pipeline,
    capacity: z.strictObject({
      cycle: text('`timely`, `evening`, `id1`, `id2`, `id3` or `latest`.'),
      gas_day: doc(z.string().regex(/^\d{4}-\d{2}-\d{2}$/), 'The gas day: `2026-11-21`.'),
      locations: doc(z.array(location), 'The locations that crossed the level in this cycle.'),
    }),
    sent_at: sentAt,
  }),
  "OAC crossed a capacity rule's level at one or more locations of one cycle.",
  'Capacity',
);

/** The body of every webhook `POST`, one branch per state. */
export const webhookBodySchema = z.discriminatedUnion('state', [
  noticeNew,
  noticeUpdated,
  reminder,
  capacity,
  ...operationsBranches,
  silenceEnded,
]);
docs.add(webhookBodySchema, {
  title: 'pipewatch webhook body, version 1',
  description:
    'The JSON body of each webhook POST, one alert each. `kind` and `state` say which ' +
    'branch it is. Objects are closed (`additionalProperties: false`): this is exactly ' +
    'what this release sends, and a field added later comes with a new schema.',
});

/**
 * The JSON body of one webhook `POST`, field for field what a receiver gets: a type of
 * its own, so that nothing an alert holds for other channels reaches receivers unnamed.
 */
export type WebhookBody = z.output<typeof webhookBodySchema>;
/** A notice as a webhook body carries it. */
export type WebhookNotice = z.output<typeof notice>;
/** A capacity location as a webhook body carries it. */
export type WebhookLocation = z.output<typeof location>;

/**
 * The JSON Schema of the body (draft 2020-12), as committed in `docs/webhook.schema.json`.
 * A nullable value is an `anyOf` rather than a list of types, which validators in strict
 * mode (Ajv's) refuse to compile.
 */
export function webhookJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(webhookBodySchema, { metadata: docs, target: 'draft-2020-12' });
  return withoutTypeLists(schema) as Record<string, unknown>;
}

function withoutTypeLists(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutTypeLists);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' && Array.isArray(value)) out.anyOf = value.map((type) => ({ type }));
    else out[key] = withoutTypeLists(value);
  }
  return out;
}
