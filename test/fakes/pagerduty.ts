/**
 * PagerDuty's Events API v2 on loopback: `POST /v2/enqueue` checks each event as
 * PagerDuty documents it (a 32-character `routing_key`; `event_action` trigger,
 * acknowledge or resolve; a `dedup_key` for acknowledge and resolve; on trigger a
 * `payload` with `summary` of at most 1024 characters, `source`, and `severity` among
 * critical, error, warning, info; the whole event under 512 KB), answering 202
 * `{"status":"success","message":"Event processed","dedup_key":…}` or 400
 * `{"status":"invalid event","message":"Event object is invalid","errors":[…]}`; 429 and
 * other statuses on demand (`fail`). It keeps the incidents the events open and close,
 * by routing key and dedup key, as PagerDuty would.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One event PagerDuty accepted. */
export interface ReceivedEvent {
  routing_key: string;
  event_action: 'trigger' | 'acknowledge' | 'resolve';
  dedup_key: string;
  payload?: {
    summary: string;
    source: string;
    severity: string;
    timestamp?: string;
    component?: string;
    group?: string;
    class?: string;
    custom_details?: Record<string, unknown>;
  };
  links?: Array<{ href: string; text?: string }>;
}

export interface PagerDutyFake {
  /** Base URL, for `PAGERDUTY_API_URL`: `http://127.0.0.1:<port>`. */
  url: string;
  /** Events accepted (202), in order. */
  events: ReceivedEvent[];
  /** Every request, answered or refused. */
  requests: number;
  /** Open incidents: `routing_key dedup_key`. */
  open: Set<string>;
  /** The next `count` requests are answered with `status` (429: PagerDuty's rate limit answer). */
  fail(status: number, count?: number): void;
  close(): Promise<void>;
}

const SEVERITIES = new Set(['critical', 'error', 'warning', 'info']);
const ACTIONS = new Set(['trigger', 'acknowledge', 'resolve']);

/** What the Events API refuses in `event`, as its `errors` list. */
export function eventErrors(event: unknown, bytes: number): string[] {
  const errors: string[] = [];
  if (bytes > 512 * 1024) errors.push('Event object exceeds 512 KB');
  if (typeof event !== 'object' || event === null) return ['Event object is not an object'];
  const e = event as Record<string, unknown>;
  if (typeof e.routing_key !== 'string' || e.routing_key.length !== 32)
    errors.push("'routing_key' must be 32 characters");
  if (typeof e.event_action !== 'string' || !ACTIONS.has(e.event_action))
    errors.push("'event_action' must be one of trigger, acknowledge, resolve");
  if (e.event_action !== 'trigger' && typeof e.dedup_key !== 'string')
    errors.push("'dedup_key' is required for acknowledge and resolve");
  if (typeof e.dedup_key === 'string' && e.dedup_key.length > 255)
    errors.push("'dedup_key' must be at most 255 characters");
  if (e.event_action === 'trigger') {
    const p = e.payload as Record<string, unknown> | undefined;
    if (typeof p !== 'object' || p === null) errors.push("'payload' is missing");
    else {
      if (typeof p.summary !== 'string' || p.summary === '')
        errors.push("'payload.summary' is missing");
      else if (p.summary.length > 1024) errors.push("'payload.summary' exceeds 1024 characters");
      if (typeof p.source !== 'string' || p.source === '')
        errors.push("'payload.source' is missing");
      if (typeof p.severity !== 'string' || !SEVERITIES.has(p.severity))
        errors.push("'payload.severity' must be one of critical, error, warning, info");
      if (p.timestamp !== undefined && Number.isNaN(Date.parse(String(p.timestamp))))
        errors.push("'payload.timestamp' must be an ISO 8601 date");
    }
  }
  return errors;
}

export async function startPagerDutyFake(): Promise<PagerDutyFake> {
  const faults: number[] = [];
  const fake = {
    events: [] as ReceivedEvent[],
    requests: 0,
    open: new Set<string>(),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      fake.requests += 1;
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method !== 'POST' || req.url !== '/v2/enqueue')
        return void json(404, { status: 'not found' });
      const fault = faults.shift();
      if (fault === 429)
        return void json(429, {
          status: 'throttle event',
          message: 'Requests for this service are arriving too quickly. Please retry later.',
        });
      if (fault !== undefined)
        return void json(fault, { status: 'error', message: `refused with ${fault}` });
      const raw = Buffer.concat(chunks);
      let event: unknown;
      try {
        event = JSON.parse(raw.toString('utf8'));
      } catch {
        return void json(400, {
          status: 'invalid event',
          message: 'Event object is invalid',
          errors: ['Malformed JSON'],
        });
      }
      const errors = eventErrors(event, raw.length);
      if (errors.length > 0)
        return void json(400, {
          status: 'invalid event',
          message: 'Event object is invalid',
          errors,
        });
      const e = event as ReceivedEvent;
      const dedup = e.dedup_key ?? randomUUID();
      const incident = `${e.routing_key} ${dedup}`;
      if (e.event_action === 'trigger') fake.open.add(incident);
      if (e.event_action === 'resolve') fake.open.delete(incident);
      fake.events.push({ ...e, dedup_key: dedup });
      void json(202, { status: 'success', message: 'Event processed', dedup_key: dedup });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    fail(status: number, count = 1) {
      for (let i = 0; i < count; i++) faults.push(status);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
