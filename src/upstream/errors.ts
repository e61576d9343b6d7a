/**
 * Errors of the Pipeline Information API client. Each carries a stable `code`, the
 * endpoint and host it concerns, and whether trying again later can help: callers branch
 * on `retryable` (or the two base classes), never on message text.
 */

/** Stable identifiers for every failure the client reports. */
export const UpstreamErrorCode = {
  Authentication: 'UPSTREAM_AUTH',
  NotFound: 'UPSTREAM_NOT_FOUND',
  Rejected: 'UPSTREAM_REJECTED',
  Schema: 'UPSTREAM_SCHEMA',
  RateLimited: 'UPSTREAM_RATE_LIMITED',
  Server: 'UPSTREAM_SERVER',
  Network: 'UPSTREAM_NETWORK',
  Timeout: 'UPSTREAM_TIMEOUT',
  MalformedBody: 'UPSTREAM_MALFORMED_BODY',
  BodyTooLarge: 'UPSTREAM_BODY_TOO_LARGE',
  Unavailable: 'UPSTREAM_UNAVAILABLE',
} as const;
export type UpstreamErrorCode = (typeof UpstreamErrorCode)[keyof typeof UpstreamErrorCode];

/** Where a failure happened: `GET /ip/notices?page=2 on api.example.com`. */
export interface RequestContext {
  method: string;
  /** Path below `/api/v1`, with its query string. */
  endpoint: string;
  host: string;
}

interface UpstreamErrorOptions {
  context: RequestContext;
  status?: number;
  /** Messages of the API's error envelope, when it sent one. */
  apiMessages?: readonly string[];
  /** How long the server asked us to wait (its `Retry-After`), when it said. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/** Any failure talking to the upstream API. */
export abstract class UpstreamError extends Error {
  abstract readonly code: UpstreamErrorCode;
  abstract readonly retryable: boolean;
  readonly context: RequestContext;
  readonly status: number | undefined;
  readonly apiMessages: readonly string[];
  readonly retryAfterMs: number | undefined;
  /** The message without the request context, for composing other messages. */
  readonly reason: string;

  constructor(message: string, options: UpstreamErrorOptions) {
    const where = `${options.context.method} ${options.context.endpoint} on ${options.context.host}`;
    super(`${message} (${where})`, options.cause === undefined ? {} : { cause: options.cause });
    this.name = new.target.name;
    this.reason = message;
    this.context = options.context;
    this.status = options.status;
    this.apiMessages = options.apiMessages ?? [];
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** A failure that will not go away by repeating the same request. */
export abstract class PermanentUpstreamError extends UpstreamError {
  override readonly retryable = false;
}

/** A failure that may go away later: the next sync should try again. */
export abstract class RetryableUpstreamError extends UpstreamError {
  override readonly retryable = true;
}

/** Missing, wrong or insufficient credentials (HTTP 401/403 or an auth error envelope). */
export class AuthenticationError extends PermanentUpstreamError {
  override readonly code = UpstreamErrorCode.Authentication;
}

/** The resource does not exist (unknown pipeline slug, cycle not published, bad path). */
export class NotFoundError extends PermanentUpstreamError {
  override readonly code = UpstreamErrorCode.NotFound;
}

/** The API refused the request as invalid (other 4xx, or an error envelope). */
export class RequestRejectedError extends PermanentUpstreamError {
  override readonly code = UpstreamErrorCode.Rejected;
}

/** The response is valid JSON but not the shape the spec describes. */
export class SchemaError extends PermanentUpstreamError {
  override readonly code = UpstreamErrorCode.Schema;
  /** Dotted path of the field at fault, e.g. `meta.pagination.total_pages`. */
  readonly field: string;

  constructor(message: string, options: UpstreamErrorOptions & { field: string }) {
    super(message, options);
    this.field = options.field;
  }
}

/**
 * The response body is larger than the client reads. Not worth retrying: the same page
 * would be as large again; the limit is `PIPEWATCH_API_MAX_BODY`.
 */
export class BodyTooLargeError extends PermanentUpstreamError {
  override readonly code = UpstreamErrorCode.BodyTooLarge;
  /** The limit that was exceeded, in bytes. */
  readonly limitBytes: number;

  constructor(message: string, options: UpstreamErrorOptions & { limitBytes: number }) {
    super(message, options);
    this.limitBytes = options.limitBytes;
  }
}

/** HTTP 429; `retryAfterMs` is the server's `Retry-After`, when it sent one. */
export class RateLimitedError extends RetryableUpstreamError {
  override readonly code = UpstreamErrorCode.RateLimited;
}

/** HTTP 5xx. */
export class ServerError extends RetryableUpstreamError {
  override readonly code = UpstreamErrorCode.Server;
}

/** The connection failed, was reset, or could not be made. */
export class NetworkError extends RetryableUpstreamError {
  override readonly code = UpstreamErrorCode.Network;
}

/** Connecting, waiting for headers, or reading the body took longer than allowed. */
export class TimeoutError extends RetryableUpstreamError {
  override readonly code = UpstreamErrorCode.Timeout;
}

/** A successful status with a body that is not JSON (typically cut short in transit). */
export class MalformedBodyError extends RetryableUpstreamError {
  override readonly code = UpstreamErrorCode.MalformedBody;
}

/** Retries are exhausted; `cause` is the last failure and `attempts` how many were made. */
export class UnavailableError extends RetryableUpstreamError {
  override readonly code = UpstreamErrorCode.Unavailable;
  readonly attempts: number;

  constructor(message: string, options: UpstreamErrorOptions & { attempts: number }) {
    super(message, options);
    this.attempts = options.attempts;
  }
}
