/**
 * The operations events, written once: what happened to pipewatch or the API, for
 * whoever runs it (`PIPEWATCH_OPS_TARGET`). Each event lists its fields in the order a
 * body gives them, each field's type and what it means to a reader. Three things are
 * built from these lists, so they cannot drift apart: the payload types (`payload.ts`),
 * the check of each alert read back from the outbox (`payload-schema.ts`), and the
 * webhook contract's operations branches, descriptions included
 * (`channels/webhook/body-schema.ts`, and from it `docs/webhook.schema.json`).
 */
import { z } from 'zod';
import { utcInstant } from '../lib/zod-checks.js';

/** One field: its type, and what it means to a reader of the contract. */
type Field = readonly [type: z.ZodType, meaning: string];
type Fields = Readonly<Record<string, Field>>;

/** One operations event: its name, its fields, what it means, and its title in the JSON Schema. */
export interface OperationEvent<E extends string = string, F extends Fields = Fields> {
  readonly event: E;
  readonly title: string;
  readonly meaning: string;
  readonly fields: F;
}

/** The zod shape of an event's object: `event` first, then its fields. */
export type OperationShape<D extends OperationEvent> = {
  event: z.ZodLiteral<D['event']>;
} & { -readonly [K in keyof D['fields']]: D['fields'][K][0] };

/** The value of an event's object, as pipewatch writes it (for a union of events, any one of them). */
export type OperationOf<D extends OperationEvent> = D extends OperationEvent
  ? z.output<z.ZodObject<OperationShape<D>>>
  : never;

/**
 * An event's shape, each field's type passed through `field` (the webhook contract
 * describes each one; the outbox check takes them as they are).
 */
export function operationShape<D extends OperationEvent>(
  d: D,
  field: (type: z.ZodType, meaning: string) => z.ZodType = (type) => type,
): OperationShape<D> {
  const shape: Record<string, z.ZodType> = { event: z.literal(d.event) };
  for (const [name, [type, meaning]] of Object.entries(d.fields))
    shape[name] = field(type, meaning);
  return shape as OperationShape<D>;
}

function operationEvent<const E extends string, const F extends Fields>(
  event: E,
  title: string,
  meaning: string,
  fields: F,
): OperationEvent<E, F> {
  return { event, title, meaning, fields };
}

const text = (meaning: string) => [z.string(), meaning] as const;
const textOrNull = (meaning: string) => [z.string().nullable(), meaning] as const;
const at = (meaning: string) => [utcInstant(), meaning] as const;
const atOrNull = (meaning: string) => [utcInstant().nullable(), meaning] as const;

export const schemaDrift = operationEvent(
  'schema-drift',
  'SchemaDrift',
  "The API's catalog changed: check that pipewatch still reads it correctly.",
  {
    summary: text('What changed, in one sentence.'),
    table: text('The catalog table: `notices`, `pipelines`, `tables`.'),
    previous_hash: text('Its SHA-256 before.'),
    hash: text('Its SHA-256 now.'),
    seen_at: at('When pipewatch saw the change.'),
  },
);

export const unknownPipeline = operationEvent(
  'unknown-pipeline',
  'UnknownPipeline',
  'A rule names a pipeline the API does not track, so it never fires there.',
  {
    summary: text('What is wrong and what to do, in one sentence.'),
    rule: text('The rule naming the slug, or the variable (`PIPEWATCH_PIPELINES`).'),
    slug: text('The slug the API does not track.'),
    suggestion: textOrNull('The tracked slug most likely meant.'),
    at: text(
      'Where the slug is written: `rules/low-oac.yaml:4:28`, `subscription 12:1:1`, `PIPEWATCH_PIPELINES`.',
    ),
    seen_at: at('When pipewatch found it.'),
  },
);

export const unknownLocation = operationEvent(
  'unknown-location',
  'UnknownLocation',
  'A capacity rule names a location that no capacity of its pipelines has, so it never fires there.',
  {
    summary: text('What is wrong and what to do, in one sentence.'),
    rule: text('The capacity rule naming the location.'),
    location: text('The location entry as written.'),
    pipelines: [
      z.array(z.string()),
      'The pipelines whose capacity it was checked against; empty: every pipeline (the rule names none).',
    ],
    suggestion: textOrNull('The location name or identifier most likely meant.'),
    at: text('Where the location is written: `rules/low-oac.yaml:5:19`.'),
    seen_at: at('When pipewatch found it.'),
  },
);

export const channelGone = operationEvent(
  'channel-gone',
  'ChannelGone',
  'A chat channel went away (archived, deleted, the bot removed from it): its subscriptions paused until someone subscribes there again.',
  {
    summary: text('What happened and what to do, in one sentence.'),
    channel: text('The chat channel: `slack:C0GAS`.'),
    reason: text('What the platform said: `the channel was archived (is_archived)`.'),
    paused: [z.int().min(1), 'How many of its subscriptions paused.'],
    seen_at: at('When pipewatch found it.'),
  },
);

const feed = text(
  'The feed: `notices`, `capacity`, `pipelines`, `catalog`, `alerts`, `retention`.',
);
const target = text(
  'The target as it may be shown: `slack:#gas`, a webhook as `webhook:https://host/…`.',
);

export const feedStale = operationEvent(
  'feed-stale',
  'FeedStale',
  'A feed has gone more than three of its intervals without a success: pipewatch cannot see that part of the API (credentials refused, the API down, its answers no longer read). Sent once per outage; `feed-recovered` follows at its first success.',
  {
    summary: text('What pipewatch cannot see, for how long, and what to check.'),
    feed,
    interval_seconds: [z.int().positive(), "The feed's interval."],
    last_success_at: atOrNull(
      'Its last success; `null`: none known (the time then counts from the start).',
    ),
    last_error_code: textOrNull('The code of its latest error: `UPSTREAM_AUTH`.'),
    last_error: textOrNull('Its latest error, secrets removed.'),
    seen_at: at('When pipewatch found it stale.'),
  },
);

export const feedRecovered = operationEvent(
  'feed-recovered',
  'FeedRecovered',
  'A stale feed succeeded again.',
  {
    summary: text('Which feed works again, after how long.'),
    feed,
    last_success_at: atOrNull('Its last success before the outage; `null`: none known.'),
    stale_at: at('When pipewatch found it stale.'),
    seen_at: at('The success that ended the outage.'),
  },
);

export const targetDead = operationEvent(
  'target-dead',
  'TargetDead',
  'Alerts to a target are not getting through. Sent once per outage (never to the operations target about itself); `target-recovered` follows at its next delivery.',
  {
    summary: text('Which target alerts do not reach, and why.'),
    target,
    how: [
      z.enum(['dead', 'stuck']),
      '`dead`: an alert to it failed for good; `stuck`: one has waited longer than `PIPEWATCH_DELIVERY_STUCK_AFTER`.',
    ],
    reason: text('Why its delivery failed, secrets removed.'),
    code: textOrNull('The kind of failure: `NOT_FOUND`, `AUTH`, `TIMEOUT`, …; `null`: unknown.'),
    seen_at: at('When pipewatch found it.'),
  },
);

export const targetRecovered = operationEvent(
  'target-recovered',
  'TargetRecovered',
  'A target that was dead or stuck took a delivery again.',
  {
    summary: text('Which target takes alerts again, after how long.'),
    target,
    dead_at: at('When pipewatch found it dead or stuck.'),
    seen_at: at('The delivery that ended the outage.'),
  },
);

/** Every operations event, in the order the contract lists them. */
export const OPERATION_EVENTS = [
  schemaDrift,
  unknownPipeline,
  unknownLocation,
  channelGone,
  feedStale,
  feedRecovered,
  targetDead,
  targetRecovered,
] as const;

export type OperationEvents = typeof OPERATION_EVENTS;

/** What an operations alert carries: the object of any one of the events. */
export type OperationPayload = OperationOf<OperationEvents[number]>;
