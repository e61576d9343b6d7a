/**
 * The outbox as the alerts fill it: every payload they queue is an `AlertPayload`. The
 * store keeps payloads as JSON text and leaves their type to whoever writes them; this
 * declares it, so every row read back from `store.outbox` carries an `AlertPayload`.
 */
import type { OutboxRow as StoredOutboxRow } from '../store/outbox.js';
import type { AlertPayload } from './payload.js';

declare module '../store/outbox.js' {
  /** Outbox payloads are alerts. */
  interface OutboxPayloads {
    payload: AlertPayload;
  }
}

/** A delivery waiting or done, its payload an alert. */
export type OutboxRow = StoredOutboxRow<AlertPayload>;
