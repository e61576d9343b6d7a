/**
 * The branches of the webhook body schema (`body-schema.ts`) for operations alerts, sent
 * to `PIPEWATCH_OPS_TARGET`: the API's catalog drifted, a rule names what the API does
 * not have, a chat channel went away, a feed or a target is out and back. Each is built
 * from its event in `alerts/operation-events.ts`, where the fields, their types and
 * their descriptions are written once, so the contract and the alerts pipewatch writes
 * cannot drift apart.
 */
import { z } from 'zod';
import {
  OPERATION_EVENTS,
  type OperationEvent,
  type OperationEvents,
  type OperationShape,
  operationShape,
} from '../../alerts/operation-events.js';
import { doc, pipeline, sentAt, text, version } from './schema-parts.js';

const rule = text('`pipewatch-operations`: operational alerts come from no rule file.');

/** The closed branch for event `d`, each field described as the event describes it. */
function operationsBranch<const D extends OperationEvent>(d: D): Branch<D> {
  return doc(
    z.strictObject({
      version,
      kind: z.literal('operations'),
      state: z.literal(d.event),
      rule,
      pipeline,
      operations: z.strictObject(operationShape(d, (type, meaning) => doc(type.clone(), meaning))),
      sent_at: sentAt,
    }),
    d.meaning,
    d.title,
  );
}

/** One branch per operations event, in the order the contract lists them. */
export const operationsBranches = OPERATION_EVENTS.map(
  operationsBranch,
) as Branches<OperationEvents>;

/** The branch of event `D`. */
type Branch<D extends OperationEvent> = z.ZodObject<
  {
    version: typeof version;
    kind: z.ZodLiteral<'operations'>;
    state: z.ZodLiteral<D['event']>;
    rule: typeof rule;
    pipeline: typeof pipeline;
    operations: z.ZodObject<OperationShape<D>, z.core.$strict>;
    sent_at: typeof sentAt;
  },
  z.core.$strict
>;

/** Each event's branch, the list keeping each one's own type. */
type Branches<T extends readonly unknown[]> = {
  -readonly [I in keyof T]: T[I] extends OperationEvent ? Branch<T[I]> : never;
};
