/**
 * The webhook body: the payload of the product contract (version 1) with `sent_at`, as
 * compact JSON, and its signatures under `PIPEWATCH_WEBHOOK_SECRET`:
 *
 * - `X-Pipewatch-Signature-V1: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`,
 *   the scheme Stripe and Slack use: the time is signed with the body, so a receiver
 *   that refuses a `t` older than five minutes cannot be fed a recorded request again
 *   (`verify.ts` checks it as a receiver should);
 * - `X-Pipewatch-Signature: sha256=<hex HMAC-SHA256 of the body>`, as the product
 *   contract has always defined it: it proves the body but not when it was sent, so a
 *   recorded request passes it again. It stays, unchanged, for the receivers that check
 *   it; new receivers check the first.
 *
 * Receivers verify over the raw bytes, before parsing.
 */
import { createHash, createHmac } from 'node:crypto';
import type { AlertPayload } from '../../alerts/payload.js';
import type { UtcIso } from '../../lib/time.js';

/** The signature with its time: `t=…,v1=…`. */
export const SIGNATURE_HEADER = 'x-pipewatch-signature-v1';
/** The contract's signature of the body alone, `sha256=…`. */
export const BODY_SIGNATURE_HEADER = 'x-pipewatch-signature';

/** The JSON body of one alert. */
export function renderWebhook(payload: AlertPayload, sentAt: UtcIso): string {
  const { zone: _zone, ...contract } = payload;
  return JSON.stringify({ ...contract, sent_at: sentAt });
}

/** The `X-Pipewatch-Signature-V1` value for `body` sent at `at`. */
export function signature(body: string, secret: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** The `X-Pipewatch-Signature` value for `body`: its HMAC alone, replayable. */
export function bodySignature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Both signature headers of `body` sent at `at`. */
export function signatureHeaders(body: string, secret: string, at: Date): Record<string, string> {
  return {
    [SIGNATURE_HEADER]: signature(body, secret, at),
    [BODY_SIGNATURE_HEADER]: bodySignature(body, secret),
  };
}

/**
 * `X-Pipewatch-Delivery`: the same for every resend of one alert, so a receiver can
 * drop a duplicate delivered again after a crash.
 */
export function deliveryId(alertKey: string): string {
  return createHash('sha256').update(alertKey).digest('hex').slice(0, 32);
}
