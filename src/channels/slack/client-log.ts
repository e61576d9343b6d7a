/**
 * The Slack client's own log lines, passed to pipewatch's logger one level lower (its
 * `info` is pipewatch's `debug`) and with the token, and anything shaped like one,
 * removed: the client logs request details that can carry it.
 */
import * as webApi from '@slack/web-api';
import type { Logger } from '../../lib/logger.js';
import { redactor } from '../../lib/redact.js';

/** Web API messages for pipewatch's log, with anything that looks like a token removed. */
export function clientLogger(log: Logger, token: string): webApi.Logger {
  const redact = redactor([token]);
  const scrub = (parts: unknown[]) =>
    redact(
      parts.map((p) => (typeof p === 'string' ? p : (JSON.stringify(p) ?? String(p)))).join(' '),
    );
  const at =
    (level: 'trace' | 'debug' | 'warn' | 'error') =>
    (...parts: unknown[]) => {
      if (log.isLevelEnabled(level)) log[level](scrub(parts));
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
