/**
 * A webhook receiver on loopback: records each POST with its headers and raw body,
 * checks `X-Pipewatch-Signature` when given the secret, and answers with scripted
 * statuses (`fail`) before accepting again.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The signature matched the secret (undefined: no secret to check). */
  signatureValid: boolean | undefined;
}

export interface WebhookReceiver {
  /** Base URL: `http://127.0.0.1:<port>`. */
  url: string;
  /** Accepted deliveries (2xx answers). */
  received: ReceivedHook[];
  /** Every request, answered or refused. */
  requests: number;
  /** The next `count` requests are answered with `status` (and `Retry-After` seconds). */
  fail(status: number, count?: number, retryAfterSeconds?: number): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  options: { secret?: string } = {},
): Promise<WebhookReceiver> {
  const faults: Array<{ status: number; retryAfter?: number }> = [];
  const received: ReceivedHook[] = [];
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
      const body = Buffer.concat(chunks).toString('utf8');
      let signatureValid: boolean | undefined;
      if (options.secret !== undefined) {
        const expected = Buffer.from(
          `sha256=${createHmac('sha256', options.secret).update(body).digest('hex')}`,
        );
        const given = Buffer.from(String(req.headers['x-pipewatch-signature'] ?? ''));
        signatureValid = given.length === expected.length && timingSafeEqual(given, expected);
        if (!signatureValid) {
          res.writeHead(401).end('bad signature');
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
