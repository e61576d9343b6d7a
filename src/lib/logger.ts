/**
 * Logging with pino: JSON lines on stderr by default; on a terminal, one readable line
 * per event (see `log-line.ts`), coloured when `colourWanted` says so. Values under
 * secret-sounding keys are censored, so a careless `log.info({ config })` cannot leak
 * them, and every line is passed whole through the one redaction (`redact.ts`) before it
 * is written: a secret quoted in a message or in an error from outside is replaced
 * wherever it stands. Text from outside (a notice subject) can no more reorder a line
 * with bidirectional controls (U+202E) than run an escape sequence: a readable line
 * drops them, a JSON line escapes them (`\u202e`). Logs go to stderr so that commands printing JSON on stdout stay
 * machine-readable.
 */
import { pino } from 'pino';
import { formatLogLine } from './log-line.js';
import { REDACTED, redactor } from './redact.js';
import { escapeJsonForTerminal, type Painter, painter } from './terminal.js';

export type Logger = pino.Logger;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Keys whose values never reach a log line, at the top level or one or two levels down. */
const SECRET_KEYS = [
  'password',
  'pass',
  'apiKey',
  'api_key',
  'key',
  'token',
  'secret',
  'authorization',
  'cookie',
  'botToken',
  'signingSecret',
  'appToken',
  'smtpUrl',
  'statusToken',
  'PIPEWATCH_API_KEY',
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'DISCORD_BOT_TOKEN',
  'DISCORD_PUBLIC_KEY',
  'SMTP_URL',
  'PIPEWATCH_WEBHOOK_SECRET',
  'PIPEWATCH_STATUS_TOKEN',
  'PIPEWATCH_HEARTBEAT_URL',
];

/** pino redaction paths covering each secret key at depth 0, 1 and 2. */
export const REDACT_PATHS = SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);

export interface LoggerOptions {
  level?: LogLevel;
  /** One readable line per event instead of JSON; defaults to whether `destination` is a terminal. */
  pretty?: boolean;
  /** ANSI colour in readable lines (see `colourWanted`); off unless asked for. */
  colour?: boolean;
  /** Where lines go; defaults to stderr. */
  destination?: NodeJS.WritableStream;
  /** Secret values (API key, tokens, passwords) to replace wherever they appear in a line. */
  secrets?: readonly string[];
}

/** Creates the process logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stderr;
  const readable = options.pretty ?? Boolean((destination as { isTTY?: boolean }).isTTY);
  // A line is JSON: a secret appears in it as JSON writes it, quotes and backslashes escaped.
  const secrets = options.secrets ?? [];
  const redact = redactor([...secrets, ...secrets.map((v) => JSON.stringify(v).slice(1, -1))]);
  const base: pino.LoggerOptions = {
    level: options.level ?? 'info',
    base: { name: 'pipewatch' },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (!readable)
    return pino(base, {
      write(json: string) {
        // JSON escapes C0 controls; the C1 ones and bidirectional controls, which a log
        // viewer would act on or reorder the line by, are escaped too: the same value.
        destination.write(escapeJsonForTerminal(redact(json)));
      },
    });
  const paint = painter(options.colour ?? false);
  // The level is read at each event, so fields appear as soon as debug is switched on.
  const logger: Logger = pino(base, {
    write(json: string) {
      const line = readableLine(redact(json), paint, logger.isLevelEnabled('debug'));
      destination.write(`${line}\n`);
    },
  });
  return logger;
}

/** pino's JSON line as a readable one; a line that does not parse is passed on as it is. */
function readableLine(json: string, paint: Painter, fields: boolean): string {
  let record: unknown;
  try {
    record = JSON.parse(json);
  } catch {
    return json.trimEnd();
  }
  if (typeof record !== 'object' || record === null) return json.trimEnd();
  return formatLogLine(record as Record<string, unknown>, { paint, fields });
}

/** A logger that drops everything, for library use and tests that do not read logs. */
export const silentLogger: Logger = pino({ level: 'silent' });
