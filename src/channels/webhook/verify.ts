/**
 * How a receiver checks a pipewatch webhook: the `X-Pipewatch-Signature-V1` header
 * (`t=<unix seconds>,v1=<hex>`) must hold an HMAC-SHA256, under the shared secret, of
 * `"<t>.<raw body>"`, compared in constant time, and `t` must be within five minutes of
 * the receiver's clock, so that a request recorded on the way cannot be played again
 * later. The verification snippet in docs/security.md is this code in plain JavaScript; it depends
 * on node:crypto alone so that it can be copied as it is. The test fake of a webhook
 * receiver verifies with it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far `t` may be from the receiver's clock, either way, in seconds. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The verdict on one request. */
export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: string };

export interface VerifyOptions {
  /** The receiver's time; default now. */
  now?: Date;
  /** Default `SIGNATURE_TOLERANCE_SECONDS`. */
  toleranceSeconds?: number;
}

/**
 * Checks `header` (the `X-Pipewatch-Signature-V1` value) against the raw `body` as
 * received. Accept the request only when `ok`; `reason` says why not.
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | undefined,
  body: string | Buffer,
  options: VerifyOptions = {},
): SignatureCheck {
  if (!header) return { ok: false, reason: 'no X-Pipewatch-Signature-V1 header' };
  let t: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't') t = value;
    else if (key === 'v1' && value) signatures.push(value);
  }
  if (t === undefined || !/^\d+$/.test(t)) return { ok: false, reason: 'no timestamp t=' };
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  const matches = signatures.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) return { ok: false, reason: 'signature does not match' };
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(t)) > tolerance) {
    return { ok: false, reason: `timestamp ${t} is more than ${tolerance} s from now (${now})` };
  }
  return { ok: true, timestamp: Number(t) };
}
