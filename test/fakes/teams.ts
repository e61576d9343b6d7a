/**
 * A Teams workflow's webhook trigger on loopback ("Post to a channel when a webhook
 * request is received"): it answers 202 Accepted to a message that holds one Adaptive
 * Card, as Workflows do. Each card is checked with the Adaptive Cards library itself:
 * a card the library finds any problem with (an unknown element, a missing property) is
 * refused with 400 and the problems, in the error body Power Automate answers with
 * (`{"error":{"code","message"}}`); so is a message not of the workflow's shape. A body
 * over Teams' 28 KB is refused with 413; a URL whose `sig` is not the workflow's, with
 * 401. It can be told to answer the next requests with a status of its choice (429 with
 * `Retry-After`, 5xx, a 400 with a Teams-style error body).
 */
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

// The ESM entry of the library does not load under Node; its browser bundle does.
const require = createRequire(import.meta.url);
const AC = require('adaptivecards/dist/adaptivecards.js') as {
  AdaptiveCard: new () => {
    parse(json: unknown, context: unknown): void;
    validateProperties(): { validationEvents: Array<{ message: string }> };
  };
  SerializationContext: new () => {
    eventCount: number;
    getEventAt(i: number): { message: string };
  };
};

/** What Teams takes. */
const MAX_BYTES = 28 * 1024;

/**
 * The problems the Adaptive Cards library finds with `card`: those of parsing (unknown
 * elements or properties, wrong values) and of validation; none for a good card.
 */
export function cardProblems(card: unknown): string[] {
  const parsed = new AC.AdaptiveCard();
  const context = new AC.SerializationContext();
  parsed.parse(card, context);
  const problems: string[] = [];
  for (let i = 0; i < context.eventCount; i++) problems.push(context.getEventAt(i).message);
  for (const e of parsed.validateProperties().validationEvents) problems.push(e.message);
  return problems;
}

/** The problems of a workflow's message: its shape, then its card's. */
export function messageProblems(body: unknown): string[] {
  const m = body as {
    type?: unknown;
    attachments?: Array<{ contentType?: unknown; contentUrl?: unknown; content?: unknown }>;
  };
  if (m?.type !== 'message') return ["type must be 'message'"];
  if (!Array.isArray(m.attachments) || m.attachments.length !== 1)
    return ['attachments must hold one card'];
  const [a] = m.attachments;
  if (a?.contentType !== 'application/vnd.microsoft.card.adaptive')
    return ['contentType must be application/vnd.microsoft.card.adaptive'];
  if (a.contentUrl !== null) return ['contentUrl must be null'];
  const card = a.content as { type?: unknown; version?: unknown };
  if (card?.type !== 'AdaptiveCard' || card.version !== '1.5')
    return ['content must be an AdaptiveCard of version 1.5'];
  return cardProblems(card);
}

/** A request the workflow took. */
export interface ReceivedCard {
  path: string;
  /** The body as sent, and its size in bytes. */
  raw: string;
  bytes: number;
  /** The card in it. */
  card: {
    body: Array<Record<string, unknown>>;
    actions?: Array<{ type: string; title: string; url: string }>;
  };
}

export interface TeamsWorkflow {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The workflow's URL, its signature included, as Teams shows it to be copied. */
  url: string;
  /** The signature the URL carries. */
  sig: string;
  received: ReceivedCard[];
  /** Requests refused, with the status and the reason given. */
  refused: Array<{ status: number; reason: string }>;
  /** Every request, answered or refused. */
  requests: number;
  /** The next `count` requests are answered with `status`, `Retry-After` and `body`. */
  fail(status: number, options?: { count?: number; retryAfter?: string; body?: string }): void;
  close(): Promise<void>;
}

/** A Power Automate error body. */
export function workflowError(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

export async function startTeamsWorkflow(): Promise<TeamsWorkflow> {
  const sig = 'Wq3v8kTz0pL2xYc7RbN5mD1sFh9gJ4aE6uI-oK_tQ0w';
  const faults: Array<{ status: number; retryAfter?: string; body?: string }> = [];
  const received: ReceivedCard[] = [];
  const refused: Array<{ status: number; reason: string }> = [];
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests += 1;
      const refuse = (status: number, body: string, headers: Record<string, string> = {}) => {
        refused.push({ status, reason: body });
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
      };
      const fault = faults.shift();
      if (fault) {
        const headers: Record<string, string> = {};
        if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
        const body = fault.body ?? workflowError('Fault', `scripted ${fault.status}`);
        refuse(fault.status, body, headers);
        return;
      }
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.searchParams.get('sig') !== sig) {
        refuse(
          401,
          workflowError('DirectApiAuthorizationRequired', 'The request must be signed (sig).'),
        );
        return;
      }
      const raw = Buffer.concat(chunks);
      if (raw.length > MAX_BYTES) {
        refuse(
          413,
          workflowError('RequestEntityTooLarge', `Request Entity too large: ${raw.length} bytes`),
        );
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        refuse(400, workflowError('InvalidRequestContent', 'The request body is not JSON.'));
        return;
      }
      const problems = messageProblems(body);
      if (problems.length > 0) {
        refuse(400, workflowError('InvalidCard', problems.join('; ')));
        return;
      }
      const card = (body as { attachments: Array<{ content: ReceivedCard['card'] }> })
        .attachments[0]!.content;
      received.push({ path: url.pathname, raw: raw.toString('utf8'), bytes: raw.length, card });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}/powerautomate/automations/direct/workflows/0c1d2e3f/triggers/manual/paths/invoke?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${sig}`,
    sig,
    received,
    refused,
    get requests() {
      return state.requests;
    },
    fail(status, options = {}) {
      for (let i = 0; i < (options.count ?? 1); i++)
        faults.push({
          status,
          ...(options.retryAfter === undefined ? {} : { retryAfter: options.retryAfter }),
          ...(options.body === undefined ? {} : { body: options.body }),
        });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
