/**
 * An alert as the outbox kept it, read back before it is sent: the store keeps payloads
 * as JSON it never looks inside, so this layer, which wrote them, checks each one it reads
 * for delivery against the shape it writes (`payload.ts`), and each kind for the part its
 * renderers read (a notice alert's notice, a capacity alert's locations…). A payload
 * damaged on disk, or written by an older pipewatch in a shape this one does not render,
 * is named instead of failing in a renderer. Fields it does not name pass through.
 */
import { z } from 'zod';
import { StoredCapacityLocationSchema, StoredNoticeSchema } from '../upstream/schemas.js';
import { noticeChangeSchema, supersededNoticeSchema } from './notice-change-schema.js';
import {
  OPERATION_EVENTS,
  type OperationEvent,
  type OperationEvents,
  type OperationShape,
  operationShape,
} from './operation-events.js';
import type { AlertKind, AlertPayload, AlertState, HeldAlert, SilenceSummary } from './payload.js';

/** Every kind, once: the compiler holds this list to `AlertKind`. */
const KINDS = {
  notice: true,
  deadline: true,
  capacity: true,
  operations: true,
  silence: true,
} as const satisfies Record<AlertKind, true>;

/** Every state, once: the compiler holds this list to `AlertState`. */
const STATES = {
  firing: true,
  resolved: true,
  new: true,
  updated: true,
  reminder: true,
  'schema-drift': true,
  'unknown-pipeline': true,
  'unknown-location': true,
  'channel-gone': true,
  'feed-stale': true,
  'feed-recovered': true,
  'target-dead': true,
  'target-recovered': true,
  ended: true,
} as const satisfies Record<AlertState, true>;

const kind = z.custom<AlertKind>(
  (v) => typeof v === 'string' && Object.hasOwn(KINDS, v),
  `expected one of ${Object.keys(KINDS).join(', ')}`,
);
const state = z.custom<AlertState>(
  (v) => typeof v === 'string' && Object.hasOwn(STATES, v),
  'expected a state pipewatch alerts on',
);
const instant = z.string();
const nullableText = z.string().nullable();

/** An operations event as stored: its fields, typed as the contract types them; others pass through. */
type Stored<T extends readonly unknown[]> = {
  -readonly [I in keyof T]: T[I] extends OperationEvent
    ? z.ZodObject<OperationShape<T[I]>, z.core.$loose>
    : never;
};
const stored = (d: OperationEvent) => z.looseObject(operationShape(d));

const operations = z.discriminatedUnion(
  'event',
  // Each entry is `stored(event)`; the list's type keeps each event's own.
  OPERATION_EVENTS.map(stored) as Stored<OperationEvents>,
) satisfies z.ZodType<NonNullable<AlertPayload['operations']>>;

/** One alert a silence held back, as the store kept it (`silences.hold`). */
export const heldAlertSchema = z.looseObject({
  rule: z.string(),
  kind,
  state,
  pipeline: z.string(),
  title: z.string(),
  notice_id: z.number().nullable(),
  url: nullableText,
  at: instant,
}) satisfies z.ZodType<HeldAlert>;

const silence = z.looseObject({
  id: z.number(),
  matchers: z.string(),
  started_at: instant,
  ended_at: instant,
  ended_by: z.enum(['expired', 'lifted']),
  held: z.number(),
  alerts: z.array(heldAlertSchema),
}) satisfies z.ZodType<SilenceSummary>;

const capacity = z.looseObject({
  cycle: z.string(),
  gas_day: z.string(),
  locations: z.array(
    StoredCapacityLocationSchema.extend({
      threshold: z.number(),
      clear_above: z.number(),
      unit: z.enum(['absolute', 'percent']),
      repeat: z.literal(true).optional(),
    }),
  ),
});

/** The part each kind of alert cannot be rendered without. */
const REQUIRED: Readonly<Record<AlertKind, ReadonlyArray<keyof AlertPayload>>> = {
  notice: ['notice'],
  deadline: ['notice', 'deadline'],
  capacity: ['capacity'],
  operations: ['operations'],
  silence: ['silence'],
};

/** An alert as the outbox keeps it, each kind with the part its renderers read. */
export const alertPayloadSchema = z
  .looseObject({
    version: z.literal(1),
    kind,
    state,
    rule: z.string(),
    pipeline: z.looseObject({ slug: z.string(), name: z.string() }),
    notice: StoredNoticeSchema.optional(),
    capacity: capacity.optional(),
    deadline: z
      .looseObject({
        field: z.string(),
        at: instant,
        before: z.string(),
        late: z.boolean().optional(),
      })
      .optional(),
    operations: operations.optional(),
    silence: silence.optional(),
    changed: z.array(z.string()).optional(),
    changes: z.array(noticeChangeSchema).optional(),
    supersedes: supersededNoticeSchema.optional(),
    escalation: z
      .looseObject({
        after: z.string(),
        acknowledged: z.looseObject({ by: z.string(), at: instant }).optional(),
      })
      .optional(),
    zone: z.string(),
  })
  .superRefine((p, ctx) => {
    for (const part of REQUIRED[p.kind]) {
      if (p[part] === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [part],
          message: `missing: a ${p.kind} alert is rendered from its ${part}`,
        });
    }
  }) satisfies z.ZodType<AlertPayload>;

/**
 * Every field of `AlertPayload` is named above: the schema passes unnamed fields through
 * unchecked, so a field added to alerts without a line here would be read back unchecked.
 * The compiler names such a field here.
 */
type Unnamed = Exclude<keyof AlertPayload, keyof (typeof alertPayloadSchema)['shape']>;
true satisfies [Unnamed] extends [never] ? true : { 'not named in alertPayloadSchema': Unnamed };
