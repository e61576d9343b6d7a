/**
 * Discord's interaction signing, checked before anything in a request is read as data:
 * `X-Signature-Ed25519` the hex Ed25519 signature of `X-Signature-Timestamp` followed by
 * the raw body, made with the application's private key and verified with its public
 * key (`DISCORD_PUBLIC_KEY`); and the timestamp (unix seconds) within five minutes of
 * pipewatch's clock, either way, so that a request recorded long ago is not taken now.
 * A request sent again within the window carries a valid signature: replays are told
 * apart by interaction id, which the app remembers (`store.interactions`).
 */
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** How far a request's timestamp may be from the clock: five minutes. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000;

/** What a raw 32-byte Ed25519 key is prefixed with to make a DER `SubjectPublicKeyInfo`. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The public key could not be read: one line naming the variable. */
export class PublicKeyError extends Error {
  override name = 'PublicKeyError';
}

/** The Ed25519 public key of 64 hex characters (the raw 32 bytes), as a key to verify with. */
export function ed25519PublicKey(hex: string): KeyObject {
  if (!/^[0-9a-f]{64}$/i.test(hex)) {
    throw new PublicKeyError(
      'DISCORD_PUBLIC_KEY must be 64 hexadecimal characters (the application public key from the Discord developer portal)',
    );
  }
  try {
    const der = Buffer.concat([SPKI_PREFIX, Buffer.from(hex, 'hex')]);
    return createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    throw new PublicKeyError('DISCORD_PUBLIC_KEY is not an Ed25519 public key');
  }
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The signature headers, or why they cannot be a signature made now. */
function signedHeaders(
  headers: IncomingHttpHeaders,
  nowMs: number,
): { timestamp: string; signature: string } | { why: string } {
  const timestamp = header(headers, 'x-signature-timestamp');
  if (timestamp === undefined || !/^[0-9]{1,12}$/.test(timestamp))
    return { why: 'no X-Signature-Timestamp' };
  if (Math.abs(Number(timestamp) * 1000 - nowMs) > SIGNATURE_WINDOW_MS)
    return { why: 'X-Signature-Timestamp is more than 5 minutes from now' };
  const signature = header(headers, 'x-signature-ed25519');
  if (signature === undefined || !/^[0-9a-f]{128}$/i.test(signature))
    return { why: 'no X-Signature-Ed25519 of 64 bytes in hex' };
  return { timestamp, signature };
}

/** Checks interactions' signatures with one application's public key. */
export class InteractionSignature {
  private readonly key: KeyObject;

  constructor(publicKeyHex: string) {
    this.key = ed25519PublicKey(publicKeyHex);
  }

  /**
   * Why the request's headers cannot be signed now (no timestamp, or one outside the
   * window; no signature of 64 bytes in hex); `undefined` when they can. Checked before
   * the body is read.
   */
  refuseHeaders(headers: IncomingHttpHeaders, nowMs: number): string | undefined {
    const read = signedHeaders(headers, nowMs);
    return 'why' in read ? read.why : undefined;
  }

  /** Why the request is refused (its headers, or a signature that is not the body's); `undefined` when it is signed. */
  refuse(headers: IncomingHttpHeaders, body: Buffer, nowMs: number): string | undefined {
    const read = signedHeaders(headers, nowMs);
    if ('why' in read) return read.why;
    const { timestamp } = read;
    const signature = Buffer.from(read.signature, 'hex');
    const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), body]);
    let valid = false;
    try {
      valid = verify(null, signed, this.key, signature);
    } catch {
      valid = false;
    }
    return valid ? undefined : 'the signature does not match the body';
  }
}
