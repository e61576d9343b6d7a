/**
 * A dead man's switch: after each poll, a `GET` of the heartbeat URL when it succeeded,
 * of `<url>/fail` when it failed (the convention of Healthchecks.io and its kin; Dead
 * Man's Snitch gets `?s=1` instead). The
 * service at the other end raises the alarm when the pings stop, or when a `/fail`
 * comes: so someone hears when pipewatch itself is down, hung or blind, which nothing
 * pipewatch sends can tell.
 *
 * A ping never holds up its caller: `beat` returns at once. Each request is bounded
 * (`timeoutMs`, connecting to the complete answer) and never retried, since the next
 * poll's ping is the retry; at most one is in flight, and while it is, only the latest
 * beat asked for waits to follow it, so a slow receiver can never pile requests up. A
 * ping that fails is a warning in the log. The URL often holds the check's token in its
 * path, so it is shown by scheme and host only.
 */
import { errorCode, errorName } from './error-text.js';
import type { Logger } from './logger.js';

/** How long one ping may take, connecting to the complete answer. */
export const HEARTBEAT_TIMEOUT_MS = 10_000;

/** Most of an answer's body read (and thrown away) before the connection is let go. */
const MAX_ANSWER = 64 * 1024;

/** `https://hc-ping.com/…`: the URL as logs may show it. */
export function heartbeatLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '…';
  }
}

/**
 * The URL a failure is reported to: `/fail` after the path, the query kept; for Dead
 * Man's Snitch (`nosnch.in`), which knows no `/fail`, its own way: a non-zero `s`.
 */
export function failUrl(url: string): string {
  const u = new URL(url);
  if (u.hostname === 'nosnch.in') u.searchParams.set('s', '1');
  else u.pathname = `${u.pathname.replace(/\/+$/, '')}/fail`;
  return u.toString();
}

export interface HeartbeatOptions {
  logger: Logger;
  /** Default `HEARTBEAT_TIMEOUT_MS`. */
  timeoutMs?: number;
}

/** Pings one heartbeat URL. */
export class Heartbeat {
  private inFlight: Promise<void> | undefined;
  /** The beat waiting for the one in flight: true a success, false a failure. */
  private waiting: boolean | undefined;
  private readonly label: string;
  private readonly fail: string;

  constructor(
    private readonly url: string,
    private readonly options: HeartbeatOptions,
  ) {
    this.label = heartbeatLabel(url);
    this.fail = failUrl(url);
  }

  /** Reports a success (`ok`) or a failure; returns at once. */
  beat(ok: boolean): void {
    if (this.inFlight) {
      this.waiting = ok;
      return;
    }
    this.inFlight = this.send(ok).finally(() => {
      this.inFlight = undefined;
      const next = this.waiting;
      this.waiting = undefined;
      if (next !== undefined) this.beat(next);
    });
  }

  /** Waits until every beat asked for so far has been sent, or has failed. */
  async flush(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  private async send(ok: boolean): Promise<void> {
    const { logger } = this.options;
    const timeoutMs = this.options.timeoutMs ?? HEARTBEAT_TIMEOUT_MS;
    const what = ok ? 'heartbeat' : 'heartbeat /fail';
    try {
      // Loaded with the first ping: commands that never ping (`--help`) never load it.
      const { request } = await import('undici');
      const res = await request(ok ? this.url : this.fail, {
        method: 'GET',
        headers: { 'user-agent': 'pipewatch' },
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      await res.body.dump({ limit: MAX_ANSWER });
      if (res.statusCode >= 200 && res.statusCode < 300) {
        logger.debug({ heartbeat: this.label, ok }, `${what} sent to ${this.label}`);
        return;
      }
      logger.warn(
        { heartbeat: this.label, status: res.statusCode },
        `${what} to ${this.label} was answered ${res.statusCode}: check PIPEWATCH_HEARTBEAT_URL`,
      );
    } catch (error) {
      const timedOut = errorName(error) === 'TimeoutError';
      const why = timedOut
        ? `no answer within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}`
        : (errorCode(error) ?? 'failed');
      logger.warn(
        { heartbeat: this.label, reason: why },
        `${what} to ${this.label} could not be sent (${why}); the next poll pings again`,
      );
    }
  }
}
