/**
 * The Slack client's own log lines, passed to pipewatch's logger one level lower (its
 * `info` is pipewatch's `debug`) and with the token, and anything shaped like one,
 * removed: the client logs request details that can carry it.
 *
 * A request that gets no answer the client logs as a bare "http request failed fetch
 * failed": no method, no host, no cause. A client pipewatch makes gets its logger and
 * its `fetch` as a pair (`clientLogging`): the `fetch` logs such a failure itself, with
 * the Web API method, the host and the cause, and the logger moves the client's bare
 * line to `debug`.
 */
import * as webApi from '@slack/web-api';
import { errorCause, errorCode, errorMessage, errorName } from '../../lib/error-text.js';
import type { Logger } from '../../lib/logger.js';
import { type Redact, redactor } from '../../lib/redact.js';
import { clip, oneLine } from '../text.js';

/** What the client logs, at `warn`, when a request gets no answer (its `makeRequest`). */
const REQUEST_FAILED = 'http request failed';

/** Web API messages for pipewatch's log, with anything that looks like a token removed. */
export function clientLogger(log: Logger, token: string): webApi.Logger {
  return logger(log, redactor([token]), false);
}

function logger(log: Logger, redact: Redact, failuresLogged: boolean): webApi.Logger {
  const scrub = (parts: unknown[]) =>
    redact(
      parts.map((p) => (typeof p === 'string' ? p : (JSON.stringify(p) ?? String(p)))).join(' '),
    );
  const at =
    (level: 'trace' | 'debug' | 'warn' | 'error') =>
    (...parts: unknown[]) => {
      const lower = failuresLogged && level === 'warn' && parts[0] === REQUEST_FAILED;
      const to = lower ? 'debug' : level;
      if (log.isLevelEnabled(to)) log[to](scrub(parts));
    };
  return {
    debug: at('trace'),
    info: at('debug'),
    warn: at('warn'),
    error: at('error'),
    setLevel: () => undefined,
    getLevel: () => webApi.LogLevel.DEBUG,
    setName: () => undefined,
  };
}

/** A request that got no answer, as pipewatch logs it. */
interface RequestFailure {
  /** The Web API method (`chat.postMessage`), or `request` for a URL that names none. */
  method: string;
  /** The host and port asked (`slack.com`, SLACK_API_URL's), never its credentials. */
  host: string;
  /** The system or undici code (`ECONNREFUSED`), or `TimeoutError`, when there is one. */
  cause: string | undefined;
  /** What went wrong, in one line: the cause's own message. */
  detail: string;
}

/** The URL a `fetch` was asked for. */
function urlOf(input: Parameters<typeof fetch>[0]): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}

/**
 * Which method, on which host, failed, and why. The client asks `<SLACK_API_URL><method>`,
 * so the method is the last step of the path, when it is shaped like one.
 */
function requestFailure(
  input: Parameters<typeof fetch>[0],
  error: unknown,
  redact: Redact,
): RequestFailure {
  let method = 'request';
  let host = 'an invalid URL';
  try {
    const url = new URL(urlOf(input));
    host = url.host;
    const last = url.pathname.split('/').at(-1) ?? '';
    if (/^[a-z]+(?:\.[A-Za-z0-9]+)+$/.test(last)) method = last;
  } catch {
    // The host stays unnamed: the text of a URL that does not parse is not shown.
  }
  // undici rejects with "fetch failed" and hangs what happened on `cause`.
  const inner = errorCause(error) ?? error;
  const name = errorName(error);
  const timedOut = name === 'TimeoutError' || name === 'AbortError';
  const cause = errorCode(inner) ?? errorCode(error) ?? (timedOut ? name : undefined);
  const detail = clip(oneLine(redact(errorMessage(inner))), 200) || 'fetch failed';
  return { method: redact(method), host: redact(host), cause, detail };
}

/**
 * The logger and `fetch` of a Web API client: the `fetch` logs every request that gets no
 * answer (`slack: chat.postMessage to slack.com failed: connect ECONNREFUSED …`, with
 * `method`, `host` and `cause` as fields), and the logger keeps the client's bare line
 * about it at `debug`. Neither the token nor anything shaped like one reaches the log.
 */
export function clientLogging(
  log: Logger,
  token: string,
  fetchFn: typeof fetch,
): { logger: webApi.Logger; fetch: typeof fetch } {
  const redact = redactor([token]);
  const logged: typeof fetch = async (input, init) => {
    try {
      return await fetchFn(input, init);
    } catch (error) {
      const failure = requestFailure(input, error, redact);
      const { method, host, cause, detail } = failure;
      const why = cause === undefined || detail.includes(cause) ? detail : `${cause}: ${detail}`;
      log.warn({ method, host, cause }, `slack: ${method} to ${host} failed: ${why}`);
      throw error;
    }
  };
  return { logger: logger(log, redact, true), fetch: logged };
}
