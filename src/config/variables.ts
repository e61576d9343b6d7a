/**
 * Every environment variable pipewatch reads: its zod schema, default, an example of a
 * good value, and whether it is a secret. This table is the single source for parsing,
 * for error messages and for the README's configuration table (a test keeps them equal,
 * defaults included, and fails on an environment read anywhere else in the code).
 */
import { z } from 'zod';
import { LOG_LEVELS } from '../lib/logger.js';
import { httpUrl } from '../lib/zod-checks.js';
import {
  bearerToken,
  boolean,
  byteSize,
  duration,
  emailAddress,
  integer,
  listenHost,
  positiveNumber,
  prefixed,
  slugList,
  smtpUrl,
  target,
} from './parsers.js';
import { variable } from './variable.js';

export type { Variable } from './variable.js';

/** All variables, in the order the README lists them. */
export const VARIABLES = {
  apiUrl: variable({
    name: 'PIPEWATCH_API_URL',
    parse: httpUrl,
    example: 'https://api.example.com',
    secret: false,
    description:
      "the API's `{base_url}`; the client appends `/api/v1`. Unset: demo mode (built-in simulator)",
  }),
  apiUser: variable({
    name: 'PIPEWATCH_API_USER',
    parse: z.string(),
    example: 'scheduler1',
    secret: false,
    description: 'HTTP Basic user name',
  }),
  apiKey: variable({
    name: 'PIPEWATCH_API_KEY',
    parse: z.string(),
    example: 'your-api-key',
    secret: true,
    description: 'HTTP Basic key (password)',
  }),
  apiRate: variable({
    name: 'PIPEWATCH_API_RATE',
    default: '2',
    parse: positiveNumber(),
    example: '2',
    secret: false,
    description: 'most requests per second to the API',
  }),
  apiConcurrency: variable({
    name: 'PIPEWATCH_API_CONCURRENCY',
    default: '1',
    parse: integer(1, 16),
    example: '1',
    secret: false,
    description: 'most API requests in flight at once',
  }),
  apiTimeout: variable({
    name: 'PIPEWATCH_API_TIMEOUT',
    default: '30s',
    parse: duration(1_000),
    example: '30s',
    secret: false,
    description: 'timeout for connecting, for the response headers and between body chunks',
  }),
  apiMaxBody: variable({
    name: 'PIPEWATCH_API_MAX_BODY',
    default: '20MB',
    parse: byteSize(64_000, 500_000_000),
    example: '20MB',
    secret: false,
    description:
      'largest API response body read; a larger one fails its request, unread beyond this',
  }),
  dataDir: variable({
    name: 'PIPEWATCH_DATA_DIR',
    default: './data',
    parse: z.string(),
    example: '/var/lib/pipewatch',
    secret: false,
    description: 'directory of the SQLite database `pipewatch.db`',
  }),
  rulesDir: variable({
    name: 'PIPEWATCH_RULES_DIR',
    default: './rules',
    parse: z.string(),
    example: './rules',
    secret: false,
    description: 'directory of `*.yaml` / `*.yml` rule files',
  }),
  noticesInterval: variable({
    name: 'PIPEWATCH_NOTICES_INTERVAL',
    default: '10m',
    parse: duration(60_000),
    example: '10m',
    secret: false,
    description: 'notice poll interval, at least `60s`',
  }),
  capacityInterval: variable({
    name: 'PIPEWATCH_CAPACITY_INTERVAL',
    default: '15m',
    parse: duration(60_000),
    example: '15m',
    secret: false,
    description: 'capacity poll interval, at least `60s`',
  }),
  maxAlertAge: variable({
    name: 'PIPEWATCH_MAX_ALERT_AGE',
    default: '24h',
    parse: duration(60_000),
    example: '24h',
    secret: false,
    description: 'a notice posted longer ago than this never alerts',
  }),
  pipelines: variable({
    name: 'PIPEWATCH_PIPELINES',
    parse: slugList,
    example: 'transco,texas-eastern',
    secret: false,
    description: 'pipelines whose notices alert (slugs, comma-separated); unset or empty: all',
  }),
  capacityPipelines: variable({
    name: 'PIPEWATCH_CAPACITY_PIPELINES',
    parse: slugList,
    example: 'transco,texas-eastern',
    secret: false,
    description:
      'pipelines whose capacity is fetched besides those the capacity rules name (slugs, comma-separated)',
  }),
  baselinePages: variable({
    name: 'PIPEWATCH_BASELINE_PAGES',
    default: '10',
    parse: integer(1, 1000),
    example: '10',
    secret: false,
    description: 'the first sync into an empty database stores at most this many pages of notices',
  }),
  baselineAge: variable({
    name: 'PIPEWATCH_BASELINE_AGE',
    default: '7d',
    parse: duration(60_000),
    example: '7d',
    secret: false,
    description: 'the first sync stops at a page whose newest notice is older than this',
  }),
  httpPort: variable({
    name: 'PIPEWATCH_HTTP_PORT',
    default: '8080',
    parse: integer(0, 65_535),
    example: '8080',
    secret: false,
    description:
      'port of `/healthz`, `/status`, `/metrics` and the Slack and Discord endpoints; `0` picks a free port',
  }),
  httpHost: variable({
    name: 'PIPEWATCH_HTTP_HOST',
    default: '127.0.0.1',
    parse: listenHost,
    example: '0.0.0.0',
    secret: false,
    description:
      'address the HTTP port listens on: loopback by default; `0.0.0.0` (or `::`) for every interface',
  }),
  statusToken: variable({
    name: 'PIPEWATCH_STATUS_TOKEN',
    parse: bearerToken,
    example: 'a-long-random-token-0123456789',
    secret: true,
    description:
      'bearer token for the full `/status`; needed to read `/status` at all when `PIPEWATCH_HTTP_HOST` is not loopback',
  }),
  webhookSecret: variable({
    name: 'PIPEWATCH_WEBHOOK_SECRET',
    parse: z.string().min(16, 'must be at least 16 characters'),
    example: 'a-long-random-string',
    secret: true,
    description:
      'key of the webhook signatures: `X-Pipewatch-Signature` (the body) and `X-Pipewatch-Signature-V1` (its time and the body)',
  }),
  slackBotToken: variable({
    name: 'SLACK_BOT_TOKEN',
    parse: prefixed('xoxb-', 'bot token'),
    example: 'xoxb-1234-5678-abcdef',
    secret: true,
    description: 'Slack bot token',
  }),
  slackSigningSecret: variable({
    name: 'SLACK_SIGNING_SECRET',
    parse: z.string().regex(/^[0-9a-f]{32}$/i, 'must be 32 hexadecimal characters'),
    example: '0123456789abcdef0123456789abcdef',
    secret: true,
    description: 'Slack signing secret (verifies requests from Slack)',
  }),
  slackAppToken: variable({
    name: 'SLACK_APP_TOKEN',
    parse: prefixed('xapp-', 'app-level token'),
    example: 'xapp-1-A123-456-abcdef',
    secret: true,
    description: 'Slack app-level token; set it to use Socket Mode',
  }),
  slackApiUrl: variable({
    name: 'SLACK_API_URL',
    parse: httpUrl,
    example: 'https://slack.com/api/',
    secret: false,
    description: "base URL of the Slack Web API (proxies, tests); unset: Slack's own",
  }),
  discordBotToken: variable({
    name: 'DISCORD_BOT_TOKEN',
    parse: z
      .string()
      .regex(/^[\w-]+\.[\w-]+\.[\w-]+$/, 'must be a bot token (three dot-separated parts)'),
    example: 'MTIzNDU2Nzg5.GhIjKl.abcdefghijklmnop',
    secret: true,
    description: 'Discord bot token',
  }),
  discordApplicationId: variable({
    name: 'DISCORD_APPLICATION_ID',
    parse: z.string().regex(/^\d{17,20}$/, 'must be a Discord snowflake (17 to 20 digits)'),
    example: '123456789012345678',
    secret: false,
    description: 'Discord application id',
  }),
  discordPublicKey: variable({
    name: 'DISCORD_PUBLIC_KEY',
    parse: z.string().regex(/^[0-9a-f]{64}$/i, 'must be 64 hexadecimal characters'),
    example: '<64 hex characters from the Discord developer portal>',
    secret: false,
    description: 'Discord application public key (verifies interactions)',
  }),
  discordApiUrl: variable({
    name: 'DISCORD_API_URL',
    parse: httpUrl,
    example: 'https://discord.com/api',
    secret: false,
    description: "base URL of the Discord REST API (proxies, tests); unset: Discord's own",
  }),
  smtpUrl: variable({
    name: 'SMTP_URL',
    parse: smtpUrl,
    example: 'smtps://user:password@smtp.example.com:465',
    secret: true,
    description: '`smtp://user:pass@host:port` or `smtps://…`',
  }),
  smtpAllowPlaintext: variable({
    name: 'SMTP_ALLOW_PLAINTEXT',
    default: 'false',
    parse: boolean,
    example: 'true',
    secret: false,
    description:
      '`true` lets an `smtp://` URL with a password log in without STARTTLS (a local relay); otherwise a server offering no STARTTLS is refused',
  }),
  emailFrom: variable({
    name: 'EMAIL_FROM',
    parse: emailAddress,
    example: 'pipewatch <alerts@example.com>',
    secret: false,
    description: 'sender address of alert email',
  }),
  opsTarget: variable({
    name: 'PIPEWATCH_OPS_TARGET',
    parse: target,
    example: 'slack:#pipewatch-ops',
    secret: false,
    description:
      "where operational alerts go (the API's schema changed), as `kind:value`: `slack:#ops`, `email:a@b.c`, `webhook:https://…`",
  }),
  emailRate: variable({
    name: 'PIPEWATCH_EMAIL_RATE',
    default: '5',
    parse: positiveNumber(),
    example: '5',
    secret: false,
    description: 'most email messages sent per second through the pooled SMTP connection',
  }),
  digestWindow: variable({
    name: 'PIPEWATCH_DIGEST_WINDOW',
    default: '5s',
    parse: duration(0),
    example: '5s',
    secret: false,
    description:
      'alerts for one target that fall due within this window of each other go out as one digest message; `0s` sends each alone',
  }),
  deliveryMaxAge: variable({
    name: 'PIPEWATCH_DELIVERY_MAX_AGE',
    default: '6h',
    parse: duration(60_000),
    example: '6h',
    secret: false,
    description:
      'a delivery still failing with temporary errors this long after it was decided goes dead',
  }),
  deliveryTimeout: variable({
    name: 'PIPEWATCH_DELIVERY_TIMEOUT',
    default: '30s',
    parse: duration(1_000),
    example: '30s',
    secret: false,
    description:
      "total time of one request to a delivery platform: connecting, sending and the complete answer, once the channel's pacing lets it go; one that runs out is retried",
  }),
  deliveryStuckAfter: variable({
    name: 'PIPEWATCH_DELIVERY_STUCK_AFTER',
    default: '10m',
    parse: duration(60_000),
    example: '10m',
    secret: false,
    description:
      'a target whose oldest undelivered alert fell due longer ago than this is stuck: `/healthz` answers 503, `status` lists it',
  }),
  logLevel: variable({
    name: 'LOG_LEVEL',
    default: 'info',
    parse: z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }),
    example: 'info',
    secret: false,
    description: 'pino level',
  }),
  /**
   * Read by the terminal colour rule (`src/lib/terminal.ts`) from the command's own
   * environment, not by `loadConfig`, and so not from `.env`.
   */
  noColor: variable({
    name: 'NO_COLOR',
    parse: z.string(),
    example: '1',
    secret: false,
    description: 'set to anything but the empty string: no colour in terminal logs',
  }),
  /** Read like `NO_COLOR`, by the terminal colour rule. */
  forceColor: variable({
    name: 'FORCE_COLOR',
    parse: z.string(),
    example: '0',
    secret: false,
    description: '`0` or `false`: no colour in terminal logs',
  }),
} as const;

/** The parsed value of a variable of the table. */
export type VariableValue<K extends keyof typeof VARIABLES> = z.output<
  (typeof VARIABLES)[K]['schema']
>;
