/**
 * The webhook body built through its contract: the alert's fields are laid out under
 * the contract's names, then the branch of `body-schema.ts` for the alert's state takes
 * from them exactly the fields it defines, in its order, and checks them. What receivers
 * get is therefore what the schema says and nothing the alert happens to hold besides
 * (its display zone, or a field added to alerts for other channels); a field added to
 * the schema reaches receivers with no second list to update, and one the alert lacks
 * or holds in another shape stops the body instead of going out wrong. An alert that
 * cannot make a body of its kind (a notice alert without its notice) is refused with
 * one line, for good: resending cannot mend it.
 */
import { z } from 'zod';
import type { AlertPayload } from '../../alerts/payload.js';
import { withOpenEnd } from '../../domain/open-ended.js';
import type { UtcIso } from '../../lib/time.js';
import { withArticle } from '../../lib/words.js';
import { listed } from '../silence.js';
import { DeliveryError, DeliveryErrorCode } from '../types.js';
import { type WebhookBody, webhookBodySchema } from './body-schema.js';

export type { WebhookBody, WebhookLocation, WebhookNotice } from './body-schema.js';

type Branch = (typeof webhookBodySchema.options)[number];

/** The contract's branch for each state, and the kind that state belongs to. */
const BRANCHES: ReadonlyMap<string, { schema: Branch; kind: string }> = new Map(
  webhookBodySchema.options.flatMap((schema) => {
    const state = schema.shape.state;
    const states = state instanceof z.ZodLiteral ? [...state.values] : state.options;
    const [kind] = [...schema.shape.kind.values];
    return states.map((s) => [String(s), { schema, kind: String(kind) }] as const);
  }),
);

/** What a receiver gets for alert `p` sent at `sentAt`: its fields, and only the contract's. */
export function webhookBody(p: AlertPayload, sentAt: UtcIso): WebhookBody {
  const branch = BRANCHES.get(p.state);
  if (!branch) throw refused(p, `the contract has no state ${p.state}`);
  if (p.kind !== branch.kind) throw refused(p, `state ${p.state} belongs to ${branch.kind} alerts`);
  const parsed = branch.schema.safeParse(contractFields(branch.schema, draftOf(p, sentAt)));
  if (!parsed.success) throw refused(p, mismatch(parsed.error));
  return parsed.data;
}

/**
 * The alert under the contract's names. Most fields already bear them; the rest are
 * what the contract says differently: a placeholder end is null with `open_ended`, a
 * silence lists at most 20 of its held alerts, and a flag is present only when it is true.
 */
function draftOf(p: AlertPayload, sentAt: UtcIso): Record<string, unknown> {
  return {
    ...p,
    notice: p.notice && withOpenEnd(p.notice),
    // An update queued before alerts carried their changes: none known.
    changes: p.state === 'updated' ? (p.changes ?? []) : p.changes,
    deadline: p.deadline && { ...p.deadline, late: p.deadline.late === true ? true : undefined },
    silence: p.silence && { ...p.silence, alerts: listed(p.silence) },
    sent_at: sentAt,
  };
}

/**
 * The fields of `value` that `schema` defines, in the schema's order, through nested
 * objects and lists; a field it does not define is left behind, an optional one that is
 * absent stays absent. Whether what is kept fits is for the schema's own check to say.
 */
function contractFields(schema: z.core.$ZodType, value: unknown): unknown {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable)
    return value === undefined || value === null ? value : contractFields(schema.unwrap(), value);
  if (schema instanceof z.ZodArray && Array.isArray(value))
    return value.map((item) => contractFields(schema.element, item));
  if (schema instanceof z.ZodDiscriminatedUnion && typeof value === 'object' && value !== null) {
    // The branch its discriminator names (`kind: 'time'`); none: left for the check to refuse.
    const key = schema.def.discriminator;
    const tag = (value as Record<string, unknown>)[key];
    const branch = schema.options.find(
      (o) => o instanceof z.ZodObject && o.shape[key]?.safeParse(tag).success,
    );
    return branch ? contractFields(branch, value) : value;
  }
  if (schema instanceof z.ZodObject && typeof value === 'object' && value !== null) {
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(schema.shape)) {
      if (source[key] !== undefined) out[key] = contractFields(field, source[key]);
    }
    return out;
  }
  return value;
}

/** The first way the alert misses the contract, in words: `it has no notice`. */
function mismatch(error: z.ZodError): string {
  const [issue] = error.issues;
  if (!issue) return 'it does not fit the contract';
  const path = issue.path.map(String).join('.');
  const missing = issue.code === 'invalid_type' && issue.message.endsWith('received undefined');
  if (missing && issue.path.length === 1) return `it has no ${path}`;
  return `its ${path} ${missing ? 'is missing' : `does not fit the contract (${issue.message})`}`;
}

function refused(p: AlertPayload, why: string): DeliveryError {
  return new DeliveryError(
    `webhook: cannot render ${withArticle(`${p.kind}/${p.state}`)} alert: ${why}`,
    {
      code: DeliveryErrorCode.Rejected,
      permanent: true,
    },
  );
}
