/**
 * The webhook request of one alert, pure: the body of the product contract (version 1,
 * `WebhookBody`, built through the contract in `body.ts`) as compact JSON, and the headers
 * that follow from it and from the alert, with the signatures under
 * `PIPEWATCH_WEBHOOK_SECRET`:
 *
 * - `X-Pipewatch-Signature-V1: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`,
 *   the scheme Stripe and Slack use: the time is signed with the body, so a receiver
 *   that refuses a `t` older than five minutes cannot be fed a recorded request again
 *   (`verify.ts` checks it as a receiver should). It is added when the request leaves
 *   (`signRequest`), at the time it leaves;
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
import type { Alert } from '../types.js';
import { webhookBody } from './body.js';

export type { WebhookBody } from './body.js';

/** The signature with its time: `t=…,v1=…`. */
export const SIGNATURE_HEADER = 'x-pipewatch-signature-v1';
/** The contract's signature of the body alone, `sha256=…`. */
export const BODY_SIGNATURE_HEADER = 'x-pipewatch-signature';

/** The JSON body of one alert, exactly as it is sent and signed. */
export function renderWebhook(payload: AlertPayload, sentAt: UtcIso): string {
  return JSON.stringify(webhookBody(payload, sentAt));
}

/** What a webhook request is made of besides the alert. */
export interface WebhookRenderOptions {
  /** `sent_at` of the body. */
  sentAt: UtcIso;
  /** pipewatch's version, for `User-Agent: pipewatch/<version>`. */
  version: string;
  /** PIPEWATCH_WEBHOOK_SECRET; unset: unsigned. */
  secret?: string | undefined;
}

/** One alert's request: its raw body and every header but the timed signature. */
export interface WebhookRequestParts {
  body: string;
  headers: Record<string, string>;
}

/**
 * The request of `alert`: the body, `Content-Type`, `User-Agent`, `X-Pipewatch-Delivery`
 * and, with a secret, `X-Pipewatch-Signature`. `signRequest` adds the timed signature.
 */
export function renderWebhookRequest(
  alert: Alert,
  options: WebhookRenderOptions,
): WebhookRequestParts {
  const body = renderWebhook(alert.payload, options.sentAt);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': `pipewatch/${options.version}`,
    'x-pipewatch-delivery': deliveryId(alert.key),
  };
  if (options.secret) headers[BODY_SIGNATURE_HEADER] = bodySignature(body, options.secret);
  return { body, headers };
}

/**
 * The headers of `request` signed at `at` as well: both signatures, the timed one
 * first, as they have always been sent. Without a secret, the headers as they are.
 */
export function signRequest(
  request: WebhookRequestParts,
  secret: string | undefined,
  at: Date,
): Record<string, string> {
  if (!secret) return { ...request.headers };
  const { [BODY_SIGNATURE_HEADER]: _body, ...unsigned } = request.headers;
  return { ...unsigned, ...signatureHeaders(request.body, secret, at) };
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
