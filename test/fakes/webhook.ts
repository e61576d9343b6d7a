/**
 * A webhook receiver on loopback: records each POST with its headers and raw body,
 * checks `X-Pipewatch-Signature-V1` when given the secret, as docs/security.md tells receivers to
 * (`verifyWebhookSignature`), refusing a bad one with 401, and answers with scripted
 * statuses (`fail`) before accepting again. Given a clock, it refuses a signature made
 * more than five minutes from its time too; without one it checks the HMAC only, since
 * a test's sender may run on a clock of its own.
 *
 * It can hold its answers (`hold`), as a slow receiver keeps its sender's requests in
 * flight: each request still arrives in full and is kept in `arrived`, and waits for its
 * answer until `release` (one whose sender has gone by then gets none). `until` waits on
 * what arrived, without sleeping.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '../../src/channels/webhook/verify.js';
import { createWaiters } from '../support/waiters.js';

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
  /**
   * Every request that arrived in full, in order, answered or not (held, or its sender
   * gone before the answer): what a receiver may have acted on.
   */
  arrived: ReceivedHook[];
  /** Requests whose answers are held now. */
  readonly held: number;
  /**
   * Answers the next `after` requests, then holds the answer of every request after
   * them until `release`.
   */
  hold(after?: number): void;
  /** Answers the held requests whose senders still wait, and holds no more. */
  release(): void;
  /**
   * Resolves once `done()` holds, checked now and after each request arrives or is
   * answered; rejects after `withinMs` naming `what`.
   */
  until(what: string, done: () => boolean, withinMs: number): Promise<void>;
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
  const arrived: ReceivedHook[] = [];
  const waiters = createWaiters('webhook receiver');
  const state = { requests: 0 };
  /** How many more to answer before holding; undefined: not holding. */
  let answerBeforeHolding: number | undefined;
  const held: Array<() => void> = [];
  const answer = (req: IncomingMessage, res: ServerResponse, raw: Buffer) => {
    state.requests += 1;
    const fault = faults.shift();
    if (fault) {
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
      res.writeHead(fault.status, headers).end(`refused with ${fault.status}`);
      return;
    }
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
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      arrived.push({
        path: req.url ?? '/',
        headers: req.headers,
        body: raw.toString('utf8'),
        signatureValid: undefined,
      });
      if (answerBeforeHolding === 0) {
        // A sender gone meanwhile (its connection closed) gets no answer, and none is counted.
        held.push(() => {
          if (!res.socket?.destroyed) answer(req, res, raw);
        });
      } else {
        if (answerBeforeHolding !== undefined) answerBeforeHolding -= 1;
        answer(req, res, raw);
      }
      waiters.check();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    refused,
    arrived,
    get requests() {
      return state.requests;
    },
    get held() {
      return held.length;
    },
    hold(after = 0) {
      answerBeforeHolding = after;
    },
    release() {
      answerBeforeHolding = undefined;
      for (const give of held.splice(0)) give();
      waiters.check();
    },
    until: waiters.until,
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
