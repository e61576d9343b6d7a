/**
 * Bolt's receiver for requests from Slack over HTTP, served by the daemon's own server at
 * `POST /slack/events` (commands, interactivity and events share the URL). Each request
 * goes through, in order: the signature headers (timestamp within five minutes of
 * pipewatch's clock; without them 401, the body unread), the body read up to a limit (a
 * larger one: 413, unread) within the server's budget for bodies not yet trusted (no room
 * left: 503 with `Retry-After`, unread), the v0
 * signature of the raw body (any refusal: 401, nothing parsed, nothing done), and the
 * replay check: a signature already accepted within ten minutes, remembered in the
 * database so across restarts too, gets 401 and nothing is done (Slack signs every
 * delivery anew, a retried event too, so only a copy carries the same signature). Then
 * the body is read as a form (a slash command), a form's `payload` (interactivity) or
 * JSON (events; `url_verification` answered with its challenge) and handed to the app
 * with an `ack` that writes the response. Slack gives up on an answer
 * after 3 seconds, so when no listener has acknowledged within `ackAfterMs` (2.5 s) the
 * receiver answers 200 with an empty body itself; a request no listener takes is
 * answered the same way as soon as the app is done with it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App, Receiver } from '@slack/bolt';
import { oneLine } from '../../channels/text.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { RefusalLog } from '../../lib/refusal-log.js';
import {
  BUSY,
  BUSY_RETRY_AFTER_S,
  readBody,
  turnedAway,
  UnverifiedBodies,
} from '../../lib/request-body.js';
import { firstArrival, type RequestReplays } from '../replays.js';
import { UNCHECKED } from './once.js';
import { SignatureCheck } from './signature.js';

/** The largest request body read: 1 MiB, room for a click on a full message. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** When the receiver answers for a listener that has not: well before Slack's 3 seconds. */
export const DEFAULT_ACK_AFTER_MS = 2500;

export interface SlackReceiverOptions {
  /** `SLACK_SIGNING_SECRET`. */
  signingSecret: string;
  /** The time request timestamps are judged by, and the acknowledgement deadline runs on. */
  clock: Clock;
  logger: Logger;
  /** The requests accepted lately, by signature, kept across restarts (`store.interactions`). */
  replays: RequestReplays;
  /** Largest body read, in bytes. */
  bodyLimit?: number | undefined;
  /** How long a listener has to acknowledge before the receiver answers for it. */
  ackAfterMs?: number | undefined;
}

type Body = Record<string, unknown>;

/** A request body, or why it cannot be read as one Slack sends. */
function parse(raw: Buffer, contentType: string): Body | string {
  const type = contentType.split(';')[0].trim().toLowerCase();
  const text = raw.toString('utf8');
  try {
    if (type === 'application/x-www-form-urlencoded') {
      const form = new URLSearchParams(text);
      const payload = form.get('payload');
      if (payload === null) return Object.fromEntries(form);
      const parsed: unknown = JSON.parse(payload);
      return isObject(parsed) ? parsed : 'the payload is not a JSON object';
    }
    if (type === 'application/json') {
      const parsed: unknown = JSON.parse(text);
      return isObject(parsed) ? parsed : 'the body is not a JSON object';
    }
  } catch {
    return 'the body is not valid JSON';
  }
  return `unexpected content type ${oneLine(type).slice(0, 60) || '(none)'}`;
}

function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function answer(
  res: ServerResponse,
  status: number,
  body?: unknown,
  close = false,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const headers: Record<string, string> = close ? { connection: 'close', ...extra } : extra;
  if (body === undefined || body === '') {
    res.writeHead(status, headers).end();
  } else if (typeof body === 'string') {
    res.writeHead(status, { ...headers, 'content-type': 'text/plain; charset=utf-8' }).end(body);
  } else {
    res
      .writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8' })
      .end(JSON.stringify(body));
  }
}

function retryNum(req: IncomingMessage): number | undefined {
  const n = Number.parseInt(String(req.headers['x-slack-retry-num'] ?? ''), 10);
  return Number.isFinite(n) ? n : undefined;
}

/** Slack's requests over the daemon's HTTP server, verified, for one Bolt app. */
export class SlackHttpReceiver implements Receiver {
  private app: App | undefined;
  private readonly check: SignatureCheck;
  private readonly log: Logger;
  private readonly bodyLimit: number;
  private readonly ackAfterMs: number;
  /** The budget of a receiver served by no pipewatch server (the server gives its own). */
  private readonly ownBodies = new UnverifiedBodies();
  private readonly refusals: RefusalLog;
  private stopped = false;

  constructor(private readonly options: SlackReceiverOptions) {
    this.check = new SignatureCheck(options.signingSecret);
    this.log = options.logger;
    this.refusals = new RefusalLog(this.log, options.clock);
    this.bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.ackAfterMs = options.ackAfterMs ?? DEFAULT_ACK_AFTER_MS;
  }

  /** Called by Bolt's `App` with itself. */
  init(app: App): void {
    this.app = app;
  }

  /** Nothing to listen on: the daemon's server calls `handle`. */
  async start(): Promise<void> {
    this.stopped = false;
  }

  /** Refuses further requests (503); those under way finish. */
  async stop(): Promise<void> {
    this.stopped = true;
  }

  /**
   * One request to `POST /slack/events`, answered whatever happens; its body is read
   * within `bodies` until its signature is checked.
   */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    bodies: UnverifiedBodies = this.ownBodies,
  ): Promise<void> {
    // A refused request's connection is closed: a client that sends forged requests
    // must open a connection for each.
    const refuse = (status: number, why: string) => {
      this.refusals.refused(status, req.url ?? '/', why);
      answer(res, status, `${why}\n`, true);
    };
    const busy = () => {
      if (bodies.worthLogging())
        this.log.warn({ status: 503 }, turnedAway('/slack/events', bodies));
      answer(res, 503, `${BUSY}\n`, true, { 'retry-after': String(BUSY_RETRY_AFTER_S) });
    };
    if (this.stopped || !this.app) return refuse(503, 'the Slack app is not running');
    const early = this.check.refuseHeaders(req.headers, this.options.clock.now().getTime());
    if (early) {
      req.resume();
      return refuse(401, early);
    }
    const read = await readBody(req, this.bodyLimit, bodies);
    if (read === 'aborted') return;
    if (read === 'too-large') return refuse(413, `the body is larger than ${this.bodyLimit} bytes`);
    if (read === 'busy') return busy();
    const { raw } = read;
    const why = this.check.refuse(req.headers, raw, this.options.clock.now().getTime());
    if (why) return refuse(401, why);
    const fresh = await this.firstTime(String(req.headers['x-slack-signature']));
    if (fresh === false) return refuse(401, 'the request was already received (replayed)');
    const body = parse(raw, String(req.headers['content-type'] ?? ''));
    if (typeof body === 'string') return refuse(400, body);
    if (body.type === 'url_verification') {
      answer(res, 200, { challenge: typeof body.challenge === 'string' ? body.challenge : '' });
      return;
    }
    if (body.ssl_check !== undefined) return answer(res, 200);
    await this.dispatch(this.app, body, req, res, fresh === 'unknown');
  }

  /**
   * Whether a signature arrives for the first time (remembered from now on); `unknown`
   * when the database cannot say, and the request is then acted on by no listener.
   */
  private async firstTime(signature: string): Promise<boolean | 'unknown'> {
    try {
      return await firstArrival(this.options.replays, `slack:${signature}`, this.options.clock);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.error(
        `could not tell whether a Slack request was received before, so it is not acted on: ${oneLine(message)}`,
      );
      return 'unknown';
    }
  }

  /** Hands the body to the app; whoever answers first (ack, or the deadline) is heard. */
  private async dispatch(
    app: App,
    body: Body,
    req: IncomingMessage,
    res: ServerResponse,
    unchecked: boolean,
  ) {
    let answered = false;
    const deadline = new AbortController();
    const settle = (response?: unknown) => {
      answered = true;
      deadline.abort();
      answer(res, 200, response);
    };
    this.options.clock.sleep(this.ackAfterMs, deadline.signal).then(
      () => {
        if (answered) return;
        this.log.warn(
          { type: body.type, command: body.command },
          `a Slack request was not acknowledged within ${this.ackAfterMs} ms: answered empty`,
        );
        settle();
      },
      () => undefined,
    );
    const ack = async (response?: unknown) => {
      if (answered) {
        this.log.debug({ type: body.type }, 'an acknowledgement came after the answer');
        return;
      }
      settle(response);
    };
    try {
      await app.processEvent({
        body,
        ack,
        retryNum: retryNum(req),
        retryReason:
          typeof req.headers['x-slack-retry-reason'] === 'string'
            ? req.headers['x-slack-retry-reason']
            : undefined,
        ...(unchecked ? { customProperties: { [UNCHECKED]: true } } : {}),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.error({ type: body.type }, `a Slack request failed: ${oneLine(message)}`);
    } finally {
      if (!answered) settle();
    }
  }
}
