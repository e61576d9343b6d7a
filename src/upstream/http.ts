/**
 * The HTTP transport to the upstream API: undici with keep-alive and timeouts, HTTP Basic
 * credentials on every request, a bottleneck limiter on the request rate, and retries.
 * It turns every outcome into either a parsed envelope or a typed `UpstreamError`.
 */
export { parseRetryAfter } from '../lib/backoff.js';

import Bottleneck from 'bottleneck';
import { Agent, request } from 'undici';
import { parseRetryAfter } from '../lib/backoff.js';
import { type Clock, MAX_TIMER_MS } from '../lib/clock.js';
import { errorCode, errorName } from '../lib/error-text.js';
import type { Logger } from '../lib/logger.js';
import { type Redact, redactor } from '../lib/redact.js';
import { readLimitedBody } from './body.js';
import {
  MalformedBodyError,
  NetworkError,
  type RequestContext,
  SchemaError,
  TimeoutError,
  UpstreamError,
} from './errors.js';
import { type RetryPolicy, withRetry } from './retry.js';
import { clipMessage, EnvelopeSchema } from './schemas.js';
import { errorForEnvelope, errorForStatus } from './status-errors.js';

/** Timeouts of one attempt, in milliseconds. */
export interface Timeouts {
  connectMs: number;
  /** Until the response headers arrive. */
  headersMs: number;
  /** Between two chunks of the body. */
  bodyMs: number;
  /** The whole attempt, however it is spent. */
  totalMs: number;
}

/** Requests leave no faster and no more at once than this. */
export interface RateLimit {
  maxConcurrent: number;
  /** Minimum gap between the starts of two requests. */
  minTimeMs: number;
}

export interface TransportOptions {
  /** `{base_url}`; `/api/v1` is appended. */
  baseUrl: string;
  user?: string | undefined;
  key?: string | undefined;
  userAgent: string;
  timeouts: Timeouts;
  rateLimit: RateLimit;
  retry: RetryPolicy;
  /** A response body longer than this fails with `BodyTooLargeError`, unread beyond it. */
  maxBodyBytes: number;
  clock: Clock;
  random: () => number;
  logger: Logger;
}

/** A successful envelope, before its `data` is parsed. */
export interface RawEnvelope {
  status: string;
  messages: string[];
  meta: unknown;
  data: unknown;
}

export interface TransportRequest {
  method: 'GET' | 'POST';
  /** Path below `/api/v1`, e.g. `/ip/notices`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Form fields, sent as `application/x-www-form-urlencoded`. */
  form?: Record<string, string>;
  signal?: AbortSignal;
}

/** Counters of what the transport did, for status and metrics. */
export interface TransportStats {
  requests: number;
  retries: number;
  failures: number;
}

export class Transport {
  private readonly agent: Agent;
  private readonly limiter: Bottleneck;
  private readonly apiRoot: URL;
  private readonly authorization: string | undefined;
  /** Redacts the key (and the header made of it) from whatever the API or the network said. */
  private readonly redact: Redact;
  private readonly timeouts: Timeouts;
  readonly stats: TransportStats = { requests: 0, retries: 0, failures: 0 };

  constructor(private readonly options: TransportOptions) {
    // Node's timers fire at once for a longer delay, which would time out every request.
    const t = options.timeouts;
    const cap = (ms: number) => Math.min(ms, MAX_TIMER_MS);
    this.timeouts = {
      connectMs: cap(t.connectMs),
      headersMs: cap(t.headersMs),
      bodyMs: cap(t.bodyMs),
      totalMs: cap(t.totalMs),
    };
    this.apiRoot = new URL(`${options.baseUrl.replace(/\/+$/, '')}/api/v1`);
    this.authorization =
      options.user !== undefined && options.key !== undefined
        ? `Basic ${Buffer.from(`${options.user}:${options.key}`).toString('base64')}`
        : undefined;
    this.redact = redactor([options.key, this.authorization?.slice('Basic '.length)]);
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      connect: { timeout: this.timeouts.connectMs },
      headersTimeout: this.timeouts.headersMs,
      bodyTimeout: this.timeouts.bodyMs,
    });
    this.limiter = new Bottleneck({
      maxConcurrent: options.rateLimit.maxConcurrent,
      minTime: options.rateLimit.minTimeMs,
    });
  }

  /** The host requests go to, for messages. */
  get host(): string {
    return this.apiRoot.host;
  }

  /** Sends a request with retries; resolves to a `success` envelope or throws `UpstreamError`. */
  async send(req: TransportRequest): Promise<RawEnvelope> {
    const url = new URL(`${this.apiRoot.pathname}${req.path}`, this.apiRoot);
    for (const [name, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const context: RequestContext = {
      method: req.method,
      endpoint: `${req.path}${url.search}`,
      host: this.apiRoot.host,
    };
    try {
      return await withRetry(
        (n) => this.limiter.schedule(() => this.attempt(url, req, context, n)),
        {
          policy: this.options.retry,
          clock: this.options.clock,
          random: this.options.random,
          context,
          ...(req.signal ? { signal: req.signal } : {}),
          onRetry: (error, attempt, delayMs) => {
            this.stats.retries++;
            this.options.logger.warn(
              { endpoint: context.endpoint, attempt, delayMs, code: error.code },
              `upstream request failed, retrying in ${delayMs} ms: ${error.reason}`,
            );
          },
        },
      );
    } catch (error) {
      this.stats.failures++;
      throw error;
    }
  }

  private async attempt(
    url: URL,
    req: TransportRequest,
    context: RequestContext,
    n: number,
  ): Promise<RawEnvelope> {
    this.stats.requests++;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent,
    };
    if (this.authorization) headers.authorization = this.authorization;
    let body: string | undefined;
    if (req.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(req.form).toString();
    }
    const deadline = AbortSignal.timeout(this.timeouts.totalMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
    const started = performance.now();
    let status: number;
    let responseHeaders: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const res = await request(url, {
        dispatcher: this.agent,
        method: req.method,
        headers,
        body,
        signal,
      });
      status = res.statusCode;
      responseHeaders = res.headers;
      text = await readLimitedBody(res, this.options.maxBodyBytes, context);
    } catch (error) {
      if (req.signal?.aborted || error instanceof UpstreamError) throw error;
      throw this.transportError(error, context, deadline.aborted);
    }
    this.options.logger.debug(
      {
        endpoint: context.endpoint,
        status,
        attempt: n,
        ms: Math.round(performance.now() - started),
      },
      'upstream response',
    );
    return this.interpret(status, responseHeaders, text, context);
  }

  private transportError(
    error: unknown,
    context: RequestContext,
    deadlinePassed: boolean,
  ): UpstreamError {
    const code = errorCode(error) ?? '';
    const name = errorName(error) ?? '';
    if (deadlinePassed || /TIMEOUT/.test(code) || name === 'TimeoutError') {
      const which =
        code === 'UND_ERR_CONNECT_TIMEOUT'
          ? 'connecting'
          : code === 'UND_ERR_BODY_TIMEOUT'
            ? 'reading the body'
            : code === 'UND_ERR_HEADERS_TIMEOUT'
              ? 'waiting for the response'
              : 'the request';
      return new TimeoutError(`timed out ${which}`, { context, cause: error });
    }
    const detail = this.redact(error instanceof Error ? error.message : String(error));
    return new NetworkError(`network error: ${code ? `${code} ` : ''}${detail}`, {
      context,
      cause: error,
    });
  }

  private interpret(
    status: number,
    headers: Record<string, string | string[] | undefined>,
    text: string,
    context: RequestContext,
  ): RawEnvelope {
    let json: unknown;
    let jsonOk = true;
    try {
      json = JSON.parse(text);
    } catch {
      jsonOk = false;
    }
    const parsed = jsonOk ? EnvelopeSchema.safeParse(json) : undefined;
    const envelope = parsed?.success ? parsed.data : undefined;
    // An API that echoes the key it refused must not get it into logs, status or sync_state.
    const apiMessages = (envelope?.messages ?? []).map((m) => clipMessage(this.redact(m)));
    const retryAfterMs = parseRetryAfter(headers['retry-after'], this.options.clock.now());
    const base = { context, status, apiMessages, retryAfterMs };
    const refused = errorForStatus(base);
    if (refused) return fail(refused);
    if (!jsonOk) {
      const preview = JSON.stringify(this.redact(text.slice(0, 200)).slice(0, 60));
      return fail(
        new MalformedBodyError(
          `response is not valid JSON (${text.length} bytes, starting ${preview})`,
          base,
        ),
      );
    }
    if (!envelope) {
      const issue = parsed?.error?.issues[0];
      const field = issue ? issue.path.join('.') || '(root)' : '(root)';
      const what = `${field}: ${issue?.message ?? 'unexpected shape'}`;
      return fail(new SchemaError(`response is not an API envelope: ${what}`, { ...base, field }));
    }
    if (envelope.status !== 'success') return fail(errorForEnvelope(envelope.status, base));
    return {
      status: envelope.status,
      messages: apiMessages,
      meta: envelope.meta ?? {},
      data: envelope.data,
    };
  }

  /** Stops the limiter and closes pooled connections. */
  async close(): Promise<void> {
    await this.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
    await this.agent.close();
  }
}

function fail(error: UpstreamError): never {
  throw error;
}
