/**
 * Every environment variable pipewatch reads: its zod schema, default, an example of a
 * good value, and whether it is a secret. This table is the single source for parsing,
 * for error messages and for the README's configuration table (a test keeps them equal).
 */
import { z } from 'zod';
import { formatDuration, parseDuration } from '../lib/duration.js';
import { LOG_LEVELS } from '../lib/logger.js';
import { httpUrl } from '../rules/schema-parts.js';
import { parseTarget } from '../rules/targets.js';

/** One environment variable. */
export interface Variable<T> {
  name: string;
  /** Parses the raw text; `undefined` when the variable is unset or empty. */
  schema: z.ZodType<T, string | undefined>;
  example: string;
  /** Never echo the value: not in errors, not in logs. */
  secret: boolean;
  description: string;
}

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

function withDefault<T>(fallback: string, inner: z.ZodType<T, string>) {
  return optionalText.transform((v) => v ?? fallback).pipe(inner);
}

function optional<T>(inner: z.ZodType<T, string>) {
  return optionalText.pipe(z.union([z.undefined(), inner]));
}

/** A duration of at least `min` milliseconds, returned in milliseconds. */
function duration(minMs: number) {
  return z.string().transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'is not a duration (a number and a unit: s, m, h or d)',
      });
      return z.NEVER;
    }
    if (ms < minMs) {
      ctx.addIssue({ code: 'custom', message: `is below the minimum of ${formatDuration(minMs)}` });
      return z.NEVER;
    }
    return ms;
  });
}

function integer(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);
}

function positiveNumber() {
  return z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a number')
    .transform(Number)
    .refine((n) => n > 0, 'must be greater than 0');
}

function prefixed(prefix: string, what: string) {
  return z
    .string()
    .refine((v) => v.startsWith(prefix), `must be a ${what} starting with "${prefix}"`);
}

const smtpUrl = z.string().refine((v) => {
  try {
    const url = new URL(v);
    return ['smtp:', 'smtps:'].includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}, 'must be an smtp:// or smtps:// URL with a host');

const emailAddress = z
  .string()
  .refine(
    (v) =>
      /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(v) ||
      /^[^<>]*<[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>$/.test(v),
    'must be an email address, optionally with a name: "pipewatch <alerts@example.com>"',
  );

/** A comma-separated list of pipeline slugs. */
const slugList = z.string().transform((v, ctx) => {
  const slugs = v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const bad = slugs.find((s) => !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(s));
  if (bad !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `must be pipeline slugs separated by commas; "${bad}" is not a slug`,
    });
    return z.NEVER;
  }
  return [...new Set(slugs)];
});

function variable<T>(v: Variable<T>): Variable<T> {
  return v;
}

/** All variables, in the order the README lists them. */
export const VARIABLES = {
  apiUrl: variable({
    name: 'PIPEWATCH_API_URL',
    schema: optional(httpUrl),
    example: 'https://api.example.com',
    secret: false,
    description:
      "the API's `{base_url}`; the client appends `/api/v1`. Unset: demo mode (built-in simulator)",
  }),
  apiUser: variable({
    name: 'PIPEWATCH_API_USER',
    schema: optionalText,
    example: 'scheduler1',
    secret: false,
    description: 'HTTP Basic user name',
  }),
  apiKey: variable({
    name: 'PIPEWATCH_API_KEY',
    schema: optionalText,
    example: 'your-api-key',
    secret: true,
    description: 'HTTP Basic key (password)',
  }),
  apiRate: variable({
    name: 'PIPEWATCH_API_RATE',
    schema: withDefault('2', positiveNumber()),
    example: '2',
    secret: false,
    description: 'most requests per second to the API',
  }),
  apiConcurrency: variable({
    name: 'PIPEWATCH_API_CONCURRENCY',
    schema: withDefault('1', integer(1, 16)),
    example: '1',
    secret: false,
    description: 'most API requests in flight at once',
  }),
  apiTimeout: variable({
    name: 'PIPEWATCH_API_TIMEOUT',
    schema: withDefault('30s', duration(1_000)),
    example: '30s',
    secret: false,
    description: 'timeout for connecting, for the response headers and between body chunks',
  }),
  dataDir: variable({
    name: 'PIPEWATCH_DATA_DIR',
    schema: withDefault('./data', z.string()),
    example: '/var/lib/pipewatch',
    secret: false,
    description: 'directory of the SQLite database `pipewatch.db`',
  }),
  rulesDir: variable({
    name: 'PIPEWATCH_RULES_DIR',
    schema: withDefault('./rules', z.string()),
    example: './rules',
    secret: false,
    description: 'directory of `*.yaml` / `*.yml` rule files',
  }),
  noticesInterval: variable({
    name: 'PIPEWATCH_NOTICES_INTERVAL',
    schema: withDefault('10m', duration(60_000)),
    example: '10m',
    secret: false,
    description: 'notice poll interval, at least `60s`',
  }),
  capacityInterval: variable({
    name: 'PIPEWATCH_CAPACITY_INTERVAL',
    schema: withDefault('15m', duration(60_000)),
    example: '15m',
    secret: false,
    description: 'capacity poll interval, at least `60s`',
  }),
  maxAlertAge: variable({
    name: 'PIPEWATCH_MAX_ALERT_AGE',
    schema: withDefault('24h', duration(60_000)),
    example: '24h',
    secret: false,
    description: 'a notice posted longer ago than this never alerts',
  }),
  pipelines: variable({
    name: 'PIPEWATCH_PIPELINES',
    schema: withDefault('', slugList),
    example: 'transco,texas-eastern',
    secret: false,
    description: 'pipelines whose notices alert (slugs, comma-separated); empty: all',
  }),
  capacityPipelines: variable({
    name: 'PIPEWATCH_CAPACITY_PIPELINES',
    schema: withDefault('', z.string()).pipe(slugList),
    example: 'transco,texas-eastern',
    secret: false,
    description: 'pipelines whose capacity is fetched (slugs, comma-separated); empty: none',
  }),
  baselinePages: variable({
    name: 'PIPEWATCH_BASELINE_PAGES',
    schema: withDefault('10', integer(1, 1000)),
    example: '10',
    secret: false,
    description: 'the first sync into an empty database stores at most this many pages of notices…',
  }),
  baselineAge: variable({
    name: 'PIPEWATCH_BASELINE_AGE',
    schema: withDefault('7d', duration(60_000)),
    example: '7d',
    secret: false,
    description: '…and stops at a page whose newest notice is older than this',
  }),
  httpPort: variable({
    name: 'PIPEWATCH_HTTP_PORT',
    schema: withDefault('8080', integer(0, 65_535)),
    example: '8080',
    secret: false,
    description:
      'port of `/healthz`, `/status`, `/metrics` and the Slack and Discord endpoints; `0` picks a free port',
  }),
  webhookSecret: variable({
    name: 'PIPEWATCH_WEBHOOK_SECRET',
    schema: optional(z.string().min(16, 'must be at least 16 characters')),
    example: 'a-long-random-string',
    secret: true,
    description: 'key of the `X-Pipewatch-Signature` HMAC on webhook bodies',
  }),
  slackBotToken: variable({
    name: 'SLACK_BOT_TOKEN',
    schema: optional(prefixed('xoxb-', 'bot token')),
    example: 'xoxb-1234-5678-abcdef',
    secret: true,
    description: 'Slack bot token',
  }),
  slackSigningSecret: variable({
    name: 'SLACK_SIGNING_SECRET',
    schema: optional(z.string().regex(/^[0-9a-f]{32}$/i, 'must be 32 hexadecimal characters')),
    example: '0123456789abcdef0123456789abcdef',
    secret: true,
    description: 'Slack signing secret (verifies requests from Slack)',
  }),
  slackAppToken: variable({
    name: 'SLACK_APP_TOKEN',
    schema: optional(prefixed('xapp-', 'app-level token')),
    example: 'xapp-1-A123-456-abcdef',
    secret: true,
    description: 'Slack app-level token; set it to use Socket Mode',
  }),
  slackApiUrl: variable({
    name: 'SLACK_API_URL',
    schema: optional(httpUrl),
    example: 'https://slack.com/api/',
    secret: false,
    description: "base URL of the Slack Web API (proxies, tests); default Slack's own",
  }),
  discordBotToken: variable({
    name: 'DISCORD_BOT_TOKEN',
    schema: optional(
      z
        .string()
        .regex(/^[\w-]+\.[\w-]+\.[\w-]+$/, 'must be a bot token (three dot-separated parts)'),
    ),
    example: 'MTIzNDU2Nzg5.GhIjKl.abcdefghijklmnop',
    secret: true,
    description: 'Discord bot token',
  }),
  discordApplicationId: variable({
    name: 'DISCORD_APPLICATION_ID',
    schema: optional(
      z.string().regex(/^\d{17,20}$/, 'must be a Discord snowflake (17 to 20 digits)'),
    ),
    example: '123456789012345678',
    secret: false,
    description: 'Discord application id',
  }),
  discordPublicKey: variable({
    name: 'DISCORD_PUBLIC_KEY',
    schema: optional(z.string().regex(/^[0-9a-f]{64}$/i, 'must be 64 hexadecimal characters')),
    example: '<64 hex characters from the Discord developer portal>',
    secret: false,
    description: 'Discord application public key (verifies interactions)',
  }),
  discordApiUrl: variable({
    name: 'DISCORD_API_URL',
    schema: optional(httpUrl),
    example: 'https://discord.com/api',
    secret: false,
    description: "base URL of the Discord REST API (proxies, tests); default Discord's own",
  }),
  smtpUrl: variable({
    name: 'SMTP_URL',
    schema: optional(smtpUrl),
    example: 'smtps://user:password@smtp.example.com:465',
    secret: true,
    description: '`smtp://user:pass@host:port` or `smtps://…`',
  }),
  emailFrom: variable({
    name: 'EMAIL_FROM',
    schema: optional(emailAddress),
    example: 'pipewatch <alerts@example.com>',
    secret: false,
    description: 'sender address of alert email',
  }),
  opsTarget: variable({
    name: 'PIPEWATCH_OPS_TARGET',
    schema: optionalText.transform((v, ctx) => {
      if (v === undefined) return undefined;
      try {
        return parseTarget(v);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `is not a target: ${(error as Error).message}` });
        return z.NEVER;
      }
    }),
    example: 'slack:#pipewatch-ops',
    secret: false,
    description:
      "where operational alerts go (the API's schema changed), as `kind:value`: `slack:#ops`, `email:a@b.c`, `webhook:https://…`",
  }),
  emailRate: variable({
    name: 'PIPEWATCH_EMAIL_RATE',
    schema: withDefault('5', positiveNumber()),
    example: '5',
    secret: false,
    description: 'most email messages sent per second through the pooled SMTP connection',
  }),
  digestWindow: variable({
    name: 'PIPEWATCH_DIGEST_WINDOW',
    schema: withDefault('5s', duration(0)),
    example: '5s',
    secret: false,
    description:
      'alerts for one target that fall due within this window of each other go out as one digest message; `0s` sends each alone',
  }),
  deliveryMaxAge: variable({
    name: 'PIPEWATCH_DELIVERY_MAX_AGE',
    schema: withDefault('6h', duration(60_000)),
    example: '6h',
    secret: false,
    description:
      'a delivery still failing with temporary errors this long after it was decided goes dead',
  }),
  logLevel: variable({
    name: 'LOG_LEVEL',
    schema: withDefault(
      'info',
      z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }),
    ),
    example: 'info',
    secret: false,
    description: 'pino level',
  }),
} as const;

/** The parsed value of a variable of the table. */
export type VariableValue<K extends keyof typeof VARIABLES> = z.output<
  (typeof VARIABLES)[K]['schema']
>;
