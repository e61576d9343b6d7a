/**
 * Logging with pino: JSON lines on stderr by default, human-readable when stderr is a
 * terminal. Credentials and tokens are redacted wherever they appear in a log object, so
 * a careless `log.info({ config })` cannot leak them. Logs go to stderr so that commands
 * printing JSON on stdout stay machine-readable.
 */
import { pino } from 'pino';
import pretty from 'pino-pretty';

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
  'PIPEWATCH_API_KEY',
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'DISCORD_BOT_TOKEN',
  'DISCORD_PUBLIC_KEY',
  'SMTP_URL',
  'PIPEWATCH_WEBHOOK_SECRET',
];

/** pino redaction paths covering each secret key at depth 0, 1 and 2. */
export const REDACT_PATHS = SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);

export interface LoggerOptions {
  level?: LogLevel;
  /** Pretty output; defaults to whether stderr is a terminal. */
  pretty?: boolean;
  /** Where lines go; defaults to stderr. */
  destination?: NodeJS.WritableStream;
}

/** Creates the process logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stderr;
  const usePretty = options.pretty ?? Boolean((destination as { isTTY?: boolean }).isTTY);
  const base: pino.LoggerOptions = {
    level: options.level ?? 'info',
    base: { name: 'pipewatch' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (usePretty) {
    return pino(
      base,
      pretty({
        destination,
        sync: true,
        colorize: true,
        ignore: 'pid,hostname,name',
        translateTime: 'SYS:HH:MM:ss',
      }),
    );
  }
  return pino(base, destination as pino.DestinationStream);
}

/** A logger that drops everything, for library use and tests that do not read logs. */
export const silentLogger: Logger = pino({ level: 'silent' });
