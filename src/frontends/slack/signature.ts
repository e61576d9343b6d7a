/**
 * Slack's request signing (v0), checked before anything in a request is read as data:
 * the `X-Slack-Request-Timestamp` within five minutes of pipewatch's clock, either way;
 * `X-Slack-Signature` the hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` keyed with the
 * signing secret, compared in constant time over the raw bytes. A request sent again
 * within the window carries a valid signature: the receiver tells replays apart by the
 * signature, which it remembers in the database (`frontends/replays.ts`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** How far a request's timestamp may be from the clock: five minutes, as Slack says. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The v0 signature of a body sent at `timestamp` (seconds), as Slack computes it. */
export function signatureOf(secret: string, timestamp: string, body: Buffer | string): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(body);
  return `v0=${hmac.digest('hex')}`;
}

/** The signature headers, or why they cannot be a signature made now. */
function signedHeaders(
  headers: IncomingHttpHeaders,
  nowMs: number,
): { timestamp: string; signature: string } | { why: string } {
  const timestamp = header(headers, 'x-slack-request-timestamp');
  if (timestamp === undefined || !/^[0-9]{1,12}$/.test(timestamp))
    return { why: 'no X-Slack-Request-Timestamp' };
  if (Math.abs(Number(timestamp) * 1000 - nowMs) > SIGNATURE_WINDOW_MS)
    return { why: 'X-Slack-Request-Timestamp is more than 5 minutes from now' };
  const signature = header(headers, 'x-slack-signature');
  if (signature === undefined || !/^v0=[0-9a-f]{64}$/.test(signature))
    return { why: 'no X-Slack-Signature of the v0 form' };
  return { timestamp, signature };
}

/** Checks requests' signatures with one secret. */
export class SignatureCheck {
  constructor(private readonly secret: string) {
    if (secret === '') throw new Error('the Slack signing secret is empty');
  }

  /**
   * Why the request's headers cannot be signed now (no timestamp, or one outside the
   * window, no signature of the v0 form); `undefined` when they can. Checked before the
   * body is read.
   */
  refuseHeaders(headers: IncomingHttpHeaders, nowMs: number): string | undefined {
    const read = signedHeaders(headers, nowMs);
    return 'why' in read ? read.why : undefined;
  }

  /**
   * Why the request is refused (its headers, or a signature that is not the body's);
   * `undefined` when Slack signed it.
   */
  refuse(headers: IncomingHttpHeaders, body: Buffer, nowMs: number): string | undefined {
    const read = signedHeaders(headers, nowMs);
    if ('why' in read) return read.why;
    const expected = signatureOf(this.secret, read.timestamp, body);
    if (!timingSafeEqual(Buffer.from(read.signature), Buffer.from(expected)))
      return 'the signature does not match the body';
    return undefined;
  }
}
