/**
 * What every channel is: a `send` that delivers one message for one target and says
 * what the platform answered. Each channel's folder keeps the message itself in a pure
 * `render.ts` (alerts → the platform's message), tested without the network. The
 * dispatcher (`src/delivery/`) decides what to send when, and retries; a channel paces
 * itself to its platform's limits and classifies its failures: by kind
 * (`DeliveryErrorCode`), and as permanent or temporary.
 */
import type { AlertPayload } from '../alerts/payload.js';
import type { Target, TargetKind } from '../domain/targets.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { UtcIso } from '../lib/time.js';

/** One chart, ready to attach. */
export interface ChartImage {
  /** `oac-transco-1001234.png`: a file name every platform takes. */
  name: string;
  png: Uint8Array;
  /** What the chart shows, in words: the alt text, and the figures for those without images. */
  alt: string;
  /** The alert it belongs to, and the location within it. */
  pipeline: string;
  location: string;
}

/** Where charts come from; a channel without one sends no charts. */
export type ChartSource = (payload: AlertPayload) => Promise<ChartImage[]>;

/** One alert to deliver, as the outbox holds it. */
export interface Alert {
  /**
   * The outbox key (`rule|subject|target`): the same on every resend of this alert, so a
   * channel derives idempotency keys from it (Discord's nonce, an email's Message-ID).
   */
  key: string;
  payload: AlertPayload;
}

/** A target of one kind. */
export type TargetOf<K extends TargetKind> = Extract<Target, { kind: K }>;

/**
 * What a channel remembers about the first message it sent for a subject (a notice) to
 * a target, so updates can thread under it: Slack's `{channel, ts}`, Discord's
 * `{channel, message}`, an email's `{messageId}`. Any JSON object.
 */
export type ThreadRef = Record<string, string>;

/**
 * Thread references, kept in the database by (target key, subject). Asynchronous, as
 * every call to a store shared by replicas (PostgreSQL) is: a channel awaits each
 * between the requests of one send.
 */
export interface Threads {
  get(target: string, subject: string): Promise<ThreadRef | undefined>;
  set(target: string, subject: string, ref: ThreadRef): Promise<void>;
}

/**
 * What kind of failure a send met, whatever the channel: the outbox stores it beside the
 * reason, `status` groups dead deliveries by it, and code branches on it, never on the
 * reason's text. Whether a failure is permanent is said apart (`DeliveryError.permanent`):
 * the same kind can be either (Slack's `thread_not_found` is retried, a 404 is not).
 */
export const DeliveryErrorCode = {
  /** The platform asked to slow down (HTTP 429, Slack `ratelimited`, a held Slack queue). */
  RateLimited: 'RATE_LIMITED',
  /** No complete answer in time: the attempt's deadline, HTTP 408, an SMTP timeout. */
  Timeout: 'TIMEOUT',
  /** The connection failed, was refused or reset; DNS or TLS failed. */
  Network: 'NETWORK',
  /** The platform failed on its side: HTTP 5xx, Slack `internal_error`, an SMTP 4xx. */
  ServerError: 'SERVER_ERROR',
  /** The credentials are missing, wrong, revoked or expired (HTTP 401, `invalid_auth`). */
  Auth: 'AUTH',
  /** Known, but not allowed there (HTTP 403, `not_in_channel`, `missing_scope`). */
  Forbidden: 'FORBIDDEN',
  /** The destination does not exist or is gone (HTTP 404, `channel_not_found`, archived). */
  NotFound: 'NOT_FOUND',
  /** The message an update was to thread under is gone (`thread_not_found`). */
  ThreadLost: 'THREAD_LOST',
  /** The message is larger than the platform takes (HTTP 413, `msg_too_long`). */
  TooLarge: 'TOO_LARGE',
  /** The message or target was refused as invalid (other 4xx, SMTP 5xx, a bad id). */
  Rejected: 'REJECTED',
  /** The channel lacks a setting it needs (no token; STARTTLS required and not offered). */
  NotConfigured: 'NOT_CONFIGURED',
  /** The send was called off: pipewatch is stopping or the channel closed. */
  Aborted: 'ABORTED',
  /**
   * The alert stored for the delivery cannot be read back: damaged, or of a shape this
   * pipewatch does not render. Never sent.
   */
  Unreadable: 'UNREADABLE',
  /** Anything not foreseen; retried. */
  Unknown: 'UNKNOWN',
} as const;
export type DeliveryErrorCode = (typeof DeliveryErrorCode)[keyof typeof DeliveryErrorCode];

/** Why a send failed, what kind of failure it is, and whether trying again can help. */
export class DeliveryError extends Error {
  /** What kind of failure: what code branches on and `status` groups by. */
  readonly code: DeliveryErrorCode;
  /** Not worth retrying: the row goes dead with `reason`. */
  readonly permanent: boolean;
  /** What the platform asked for (Retry-After, retry_after), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** Short, secret-free text for the outbox, `status` and logs: `slack: channel_not_found`. */
  readonly reason: string;

  constructor(
    reason: string,
    options: {
      code: DeliveryErrorCode;
      permanent: boolean;
      retryAfterMs?: number | undefined;
      cause?: unknown;
    },
  ) {
    super(reason, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DeliveryError';
    this.reason = reason;
    this.code = options.code;
    this.permanent = options.permanent;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** What the platform confirmed, one line: `ok channel=C0123 ts=1732111200.000100`. */
export interface Delivered {
  detail: string;
}

/** The total time of one request to a platform, and whose time counts. */
export interface AttemptLimit {
  ms: number;
  /** Real time for platforms; an injected clock in tests. */
  clock: Clock;
}

/** What `send` gets besides the message. */
export interface SendContext {
  /** `sent_at` of the webhook payload and of every rendered message. */
  now: UtcIso;
  threads: Threads;
  signal?: AbortSignal;
  /**
   * The limit of each request, connect to complete answer (`PIPEWATCH_DELIVERY_TIMEOUT`);
   * unset: the channel's own, on its deadline clock (real time unless a test gives one).
   */
  deadline?: AttemptLimit;
}

/** What every channel is built with. */
export interface ChannelDeps {
  clock: Clock;
  logger: Logger;
  /**
   * The time the channel's own request limit runs on: real time by default, since
   * platforms answer in real time; tests inject theirs, to end a request at its limit
   * whatever the speed of the machine.
   */
  deadlineClock?: Clock | undefined;
  /** The OAC charts capacity alerts carry (`charts.ts`); unset: alerts go without. */
  charts?: ChartSource | undefined;
}

/** A delivery channel for one target kind. */
export interface Channel<K extends TargetKind = TargetKind> {
  readonly kind: K;
  /**
   * The most alerts one message carries. Alerts for one target that fall due together
   * are grouped into digests of at most this many; 1 means no digests.
   */
  readonly maxDigest: number;
  /**
   * Sends `alerts` (1 to `maxDigest`, all for `target`) as one message, paced to the
   * platform's limits. Resolves once the platform confirmed it; rejects with a
   * `DeliveryError` otherwise.
   */
  send(target: TargetOf<K>, alerts: readonly Alert[], ctx: SendContext): Promise<Delivered>;
  /**
   * Checks the credentials with the platform (Slack `auth.test`, Discord `/users/@me`,
   * SMTP `verify`) and says who pipewatch is there: `slack: pipewatch-bot in Acme Gas`.
   */
  verify?(): Promise<string>;
  /** Releases connections and timers. */
  close?(): Promise<void>;
}

/** A channel of any one kind. */
export type AnyChannel = { [K in TargetKind]: Channel<K> }[TargetKind];

/** The channels of a running pipewatch, one per target kind. */
export interface ChannelSet {
  /** The channel for a kind; one that is not configured fails every send, temporarily. */
  for<K extends TargetKind>(kind: K): Channel<K>;
}
