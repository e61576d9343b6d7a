/**
 * HTTP plumbing shared by the API and control routes: the response envelope, JSON
 * serialisation, request bodies and HTTP Basic credentials.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Envelope } from './types.js';

/** A response before serialisation, so faults can still alter it. */
export interface ApiResponse {
  status: number;
  headers?: Record<string, string>;
  body: Envelope;
}

/** A success envelope. */
export function success(
  data: unknown,
  meta: Record<string, unknown> = {},
  messages: string[] = [],
): ApiResponse {
  return { status: 200, body: { status: 'success', messages, meta, data } };
}

/** An error envelope: `data` and `meta` empty, the reason first in `messages`. */
export function failure(
  status: number,
  message: string,
  more: string[] = [],
  headers?: Record<string, string>,
): ApiResponse {
  const response: ApiResponse = {
    status,
    body: { status: 'error', messages: [message, ...more], meta: {}, data: {} },
  };
  if (headers) response.headers = headers;
  return response;
}

/** The exact answer the real service gives for missing or wrong credentials. */
export function unauthorized(): ApiResponse {
  return failure(401, 'The API user or key does not appear to be valid.', [], {
    'WWW-Authenticate': 'Basic realm="Pipeline Information API"',
  });
}

/** Writes a response; `truncate` cuts the JSON text short (the malformed-json fault). */
export function send(res: ServerResponse, response: ApiResponse, truncate = false): void {
  let text = JSON.stringify(response.body);
  if (truncate) text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  const body = Buffer.from(text, 'utf8');
  res.writeHead(response.status, {
    ...response.headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(body.length),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

/** Thrown when a request body exceeds the limit. */
export class BodyTooLargeError extends Error {}

/** Reads a request body as text, up to `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = 1_000_000): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > limit) throw new BodyTooLargeError(`request body over ${limit} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The user name and key of an HTTP Basic `Authorization` header, if well-formed. */
export function basicCredentials(
  header: string | undefined,
): { username: string; key: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), key: decoded.slice(colon + 1) };
}
