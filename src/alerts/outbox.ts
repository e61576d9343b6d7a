/**
 * The outbox as the alerts fill it: every payload they queue is an `AlertPayload`. The
 * store keeps payloads as JSON text and leaves their type to whoever writes them; this
 * declares it, so every row read back from `store.outbox` carries an `AlertPayload`, and
 * checks it (`payload-schema.ts`) for each delivery read for sending: one whose alert
 * is damaged, or of a shape this pipewatch does not render, is set apart with the reason
 * rather than sent to fail in a renderer.
 */
import { targetKey } from '../domain/targets.js';
import type { OutboxRow as StoredOutboxRow, UnreadableDelivery } from '../store/outbox.js';
import { schemaProblem } from '../store/stored-json.js';
import type { AlertPayload } from './payload.js';
import { alertPayloadSchema } from './payload-schema.js';

declare module '../store/outbox-row.js' {
  /** Outbox payloads are alerts. */
  interface OutboxPayloads {
    payload: AlertPayload;
  }
}

/** A delivery waiting or done, its payload an alert. */
export type OutboxRow = StoredOutboxRow<AlertPayload>;

/** Deliveries read for sending: those whose alert reads as one, and those it does not. */
export interface CheckedDeliveries {
  rows: OutboxRow[];
  unreadable: UnreadableDelivery[];
}

/**
 * The deliveries `store.outbox.ready` gave, each alert checked against the shape the
 * alerts write; one that fails is unreadable, with the field at fault as its reason.
 */
export function checkDeliveries(rows: readonly OutboxRow[]): CheckedDeliveries {
  const out: CheckedDeliveries = { rows: [], unreadable: [] };
  for (const row of rows) {
    const checked = alertPayloadSchema.safeParse(row.payload);
    // Sent as it was read, not as parsed: the parse would reorder its fields.
    if (checked.success) {
      out.rows.push(row);
      continue;
    }
    out.unreadable.push({
      id: row.id,
      rule: row.rule,
      subject: row.subject,
      target: row.target,
      target_key: targetKey(row.target),
      created_at: row.created_at,
      reason: `its alert is not one this pipewatch sends: ${schemaProblem(checked.error)}`,
    });
  }
  return out;
}
