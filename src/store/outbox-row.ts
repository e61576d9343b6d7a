/**
 * An outbox row as the store reads it back, and the payload type the layer that queues
 * deliveries declares for it. Kept apart from `outbox.ts` so that the reading of stored
 * rows (`outbox-read.ts`) and the repository import the row's shape from one place below
 * them both.
 */
import type { Target } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';

/**
 * Where the layer that queues deliveries declares their payload type (as `payload`), by
 * module augmentation, so rows read back typed without the store depending on that layer.
 * Undeclared, a payload is `unknown`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by module augmentation
export interface OutboxPayloads {}

/** The payload of a delivery: the type declared in `OutboxPayloads`, else `unknown`. */
export type OutboxPayload = OutboxPayloads extends { payload: infer P } ? P : unknown;

export type OutboxStatus = 'pending' | 'sent' | 'dead';

/** A delivery waiting or done, its payload parsed from the stored JSON. */
export interface OutboxRow<P = OutboxPayload> {
  id: number;
  /** `deliveryKey` of its rule, subject and target. */
  key: string;
  /** What it is about, `notice:101:v2` or `capacity:transco:STATION 85`. */
  subject: string;
  rule: string;
  target: Target;
  payload: P;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: UtcIso;
  last_error: string | null;
  /** The kind of the last failure (a `DeliveryErrorCode`); null before one, or unknown. */
  last_error_code: string | null;
  created_at: UtcIso;
  sent_at: UtcIso | null;
  /** Set while a send is in flight. */
  claimed_at: UtcIso | null;
  /** What the platform answered, once sent. */
  detail: string | null;
}
