/**
 * A webhook receiver on loopback: records each POST with its headers and raw body,
 * checks `X-Pipewatch-Signature-V1` when given the secret, as docs/security.md tells receivers to
 * (`verifyWebhookSignature`), refusing a bad one with 401, and answers with scripted
 * statuses (`fail`) before accepting again. Given a clock, it refuses a signature made
 * more than five minutes from its time too; without one it checks the HMAC only, since
 * a test's sender may run on a clock of its own.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '../../src/channels/webhook/verify.js';

export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The signature matched the secret (undefined: no secret to check). */
  signatureValid: boolean | undefined;
}

/** A request the receiver refused for its signature. */
export interface RefusedHook {
  headers: IncomingHttpHeaders;
  body: string;
  /** Why, as `verifyWebhookSignature` says. */
  reason: string;
}

export interface WebhookReceiver {
  /** Base URL: `http://127.0.0.1:<port>`. */
  url: string;
  /** Accepted deliveries (2xx answers). */
  received: ReceivedHook[];
  /** Every request, answered or refused. */
  requests: number;
  /** Requests refused for their signature. */
  refused: RefusedHook[];
  /** The next `count` requests are answered with `status` (and `Retry-After` seconds). */
  fail(status: number, count?: number, retryAfterSeconds?: number): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  options: { secret?: string; clock?: { now(): Date } } = {},
): Promise<WebhookReceiver> {
  const faults: Array<{ status: number; retryAfter?: number }> = [];
  const received: ReceivedHook[] = [];
  const refused: RefusedHook[] = [];
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests += 1;
      const fault = faults.shift();
      if (fault) {
        const headers: Record<string, string> = { 'content-type': 'text/plain' };
        if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
        res.writeHead(fault.status, headers).end(`refused with ${fault.status}`);
        return;
      }
      const raw = Buffer.concat(chunks);
      const body = raw.toString('utf8');
      let signatureValid: boolean | undefined;
      if (options.secret !== undefined) {
        const check = verifyWebhookSignature(
          options.secret,
          req.headers['x-pipewatch-signature-v1'] as string | undefined,
          raw,
          options.clock
            ? { now: options.clock.now() }
            : { toleranceSeconds: Number.POSITIVE_INFINITY },
        );
        signatureValid = check.ok;
        if (!check.ok) {
          refused.push({ headers: req.headers, body, reason: check.reason });
          res.writeHead(401).end(`bad signature: ${check.reason}`);
          return;
        }
      }
      received.push({ path: req.url ?? '/', headers: req.headers, body, signatureValid });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    refused,
    get requests() {
      return state.requests;
    },
    fail(status, count = 1, retryAfterSeconds) {
      for (let i = 0; i < count; i++)
        faults.push({
          status,
          ...(retryAfterSeconds === undefined ? {} : { retryAfter: retryAfterSeconds }),
        });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
