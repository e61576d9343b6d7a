/**
 * The webhook body: the payload of the product contract (version 1) with `sent_at`, as
 * compact JSON, and its signature: `sha256=<hex HMAC-SHA256 of the exact body>` under
 * `PIPEWATCH_WEBHOOK_SECRET`. Receivers verify the signature over the raw bytes.
 */
import { createHash, createHmac } from 'node:crypto';
import type { AlertPayload } from '../../alerts/payload.js';
import type { UtcIso } from '../../upstream/schemas.js';

/** The JSON body of one alert. */
export function renderWebhook(payload: AlertPayload, sentAt: UtcIso): string {
  const { zone: _zone, ...contract } = payload;
  return JSON.stringify({ ...contract, sent_at: sentAt });
}

/** The `X-Pipewatch-Signature` value for `body`. */
export function signature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * `X-Pipewatch-Delivery`: the same for every resend of one alert, so a receiver can
 * drop a duplicate delivered again after a crash.
 */
export function deliveryId(alertKey: string): string {
  return createHash('sha256').update(alertKey).digest('hex').slice(0, 32);
}
