/**
 * Requests to a Slack app's Request URL, made as Slack makes them: slash commands
 * form-encoded, interactions form-encoded with one `payload` field holding the JSON, events
 * as JSON; each signed with the signing secret (`X-Slack-Signature: v0=<hex HMAC-SHA256 of
 * "v0:<timestamp>:<raw body>">`, `X-Slack-Request-Timestamp` on the sender's clock), with
 * Slack's `User-Agent`, and for a redelivered event `X-Slack-Retry-Num` and
 * `X-Slack-Retry-Reason`. To test the app's defences a request can be tampered with: signed
 * with a wrong secret, stamped at another time, its body changed after signing, padded to
 * a size, sent in chunks without a length, or sent again as it was (a replay). Each answer comes back whole: status,
 * headers and body.
 */
import { createHmac } from 'node:crypto';
import type { SlashCommandPayload } from './slack-payloads.js';
import {
  onTheWire,
  type SentRequest,
  sendOnTheWire,
  type WireAnswer,
  type WireTamper,
} from './wire-requests.js';

export type { SentRequest } from './wire-requests.js';

/** How a request is to be spoiled (headers such as `x-slack-signature`); nothing by default. */
export interface Tamper extends WireTamper {
  /** Sign with this secret instead of the app's. */
  secret?: string;
  /** `X-Slack-Request-Timestamp` (seconds, signed with) instead of the clock's now. */
  timestamp?: number | string;
  /** Pad the body to this many bytes before signing (a form field or JSON whitespace). */
  padTo?: number;
}

/** The app's answer. */
export type SlackAnswer = WireAnswer;

/** A redelivered event's `X-Slack-Retry-Num` and `X-Slack-Retry-Reason`. */
export type EventTamper = Tamper & { retry?: { num: number; reason: string } };

/** The signed requests of each kind, built and not sent. */
export interface SlackRequestBuilder {
  /** A slash command (`slashCommand()` in `slack-payloads.ts`), form-encoded. */
  command(payload: SlashCommandPayload, tamper?: Tamper): SentRequest;
  /** An interaction (`blockActions()`), as the one form field `payload=<JSON>`. */
  interactive(payload: Record<string, unknown>, tamper?: Tamper): SentRequest;
  /** An `event_callback` or `url_verification`, as JSON. */
  event(payload: Record<string, unknown>, tamper?: EventTamper): SentRequest;
}

export interface SlackRequestSender {
  command(payload: SlashCommandPayload, tamper?: Tamper): Promise<SlackAnswer>;
  interactive(payload: Record<string, unknown>, tamper?: Tamper): Promise<SlackAnswer>;
  event(payload: Record<string, unknown>, tamper?: EventTamper): Promise<SlackAnswer>;
  build: SlackRequestBuilder;
  /** Sends a request as it is: a request sent before goes again byte for byte, a replay. */
  send(request: SentRequest): Promise<SlackAnswer>;
}

/** Slack's `User-Agent` on requests to apps. */
export const SLACK_USER_AGENT = 'Slackbot 1.0 (+https://api.slack.com/robots)';

/** `v0=<hex HMAC-SHA256 of "v0:<timestamp>:<body>">`, Slack's request signature. */
export function slackSignature(secret: string, timestamp: number | string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** A form body as Slack encodes one: `application/x-www-form-urlencoded`, spaces as `+`. */
export function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

function pad(contentType: string, body: string, size: number): string {
  const missing = size - Buffer.byteLength(body);
  if (missing <= 0) return body;
  if (contentType === JSON_TYPE) return body + ' '.repeat(missing);
  const prefix = body === '' ? 'padding=' : '&padding=';
  return body + prefix + 'x'.repeat(Math.max(0, missing - prefix.length));
}

/** A sender to the app at `url` (its Request URL), signing with `signingSecret`. */
export function slackRequestSender(options: {
  url: string;
  signingSecret: string;
  /** The sender's time, for `X-Slack-Request-Timestamp`; default the system's. */
  clock?: { now(): Date };
}): SlackRequestSender {
  const now = () => options.clock?.now() ?? new Date();

  function sign(contentType: string, body: string, tamper: Tamper = {}): SentRequest {
    const padded = tamper.padTo === undefined ? body : pad(contentType, body, tamper.padTo);
    const timestamp = String(tamper.timestamp ?? Math.floor(now().getTime() / 1000));
    const headers: Record<string, string> = {
      'content-type': contentType,
      'user-agent': SLACK_USER_AGENT,
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': slackSignature(
        tamper.secret ?? options.signingSecret,
        timestamp,
        padded,
      ),
    };
    return onTheWire(options.url, headers, padded, tamper);
  }

  const build: SlackRequestBuilder = {
    command: (payload, tamper) => sign(FORM, formBody(payload), tamper),
    interactive: (payload, tamper) =>
      sign(FORM, formBody({ payload: JSON.stringify(payload) }), tamper),
    event: (payload, tamper = {}) => {
      const { retry, ...rest } = tamper;
      const retryHeaders = retry
        ? { 'x-slack-retry-num': String(retry.num), 'x-slack-retry-reason': retry.reason }
        : {};
      return sign(JSON_TYPE, JSON.stringify(payload), {
        ...rest,
        headers: { ...retryHeaders, ...rest.headers },
      });
    },
  };

  const send = sendOnTheWire;

  return {
    command: (payload, tamper) => send(build.command(payload, tamper)),
    interactive: (payload, tamper) => send(build.interactive(payload, tamper)),
    event: (payload, tamper) => send(build.event(payload, tamper)),
    build,
    send,
  };
}
