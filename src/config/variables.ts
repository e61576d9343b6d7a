/**
 * Every environment variable pipewatch reads: its zod schema, default, an example of a
 * good value, and whether it is a secret. This table is the single source for parsing,
 * for error messages and for the table in docs/configuration.md (a test keeps them equal,
 * defaults included, and fails on an environment read anywhere else in the code). The
 * delivery platforms' variables are declared as a block in `channel-variables.ts`.
 */
import { z } from 'zod';
import { LOG_LEVELS } from '../lib/logger.js';
import { httpUrl } from '../lib/zod-checks.js';
import { CHANNEL_VARIABLES } from './channel-variables.js';
import {
  bearerToken,
  byteSize,
  chatUserList,
  duration,
  durationOrOff,
  integer,
  listenHost,
  positiveNumber,
  slugList,
  target,
} from './parsers.js';
import { postgresUrl, shownPostgresUrl } from './smtp-url.js';
import { variable } from './variable.js';

export type { Variable } from './variable.js';

/** All variables, in the order docs/configuration.md lists them. */
export const VARIABLES = {
  apiUrl: variable({
    name: 'PIPEWATCH_API_URL',
    parse: httpUrl,
    example: 'https://api.example.com',
    secret: false,
    description:
      "the API's `{base_url}`; the client appends `/api/v1`. `run` refuses to start without it",
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
  databaseUrl: variable({
    name: 'PIPEWATCH_DATABASE_URL',
    parse: postgresUrl,
    example: 'postgres://pipewatch:password@db.example.com:5432/pipewatch',
    secret: true,
    shown: shownPostgresUrl,
    description:
      'a PostgreSQL database (server 14 or later) as the store, shared by every replica; unset: SQLite in `PIPEWATCH_DATA_DIR`. See [high availability](high-availability.md)',
  }),
  leaderLease: variable({
    name: 'PIPEWATCH_LEADER_LEASE',
    default: '15s',
    parse: duration(3_000),
    example: '15s',
    secret: false,
    description:
      "on PostgreSQL, how long the leader's lease lasts unrenewed: a standby takes over within it (plus one poll) when the leader dies",
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
    description:
      'a notice posted longer ago than this never alerts as new or updated (its deadlines are still reminded)',
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
  retention: variable({
    name: 'PIPEWATCH_RETENTION',
    default: '180d',
    parse: durationOrOff(86_400_000),
    example: '180d',
    secret: false,
    description:
      'a daily job removes the notices not seen for this long (a tombstone of each stays, its id, hash and version, so nothing alerts twice), and delivered alerts, history, audit, capacity, reminders done, ended silences and what they held, acknowledgements and thread references older than it; at least `1d`; `off`: keep everything',
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
  /** The credentials and endpoints of the delivery platforms. */
  ...CHANNEL_VARIABLES,
  opsTarget: variable({
    name: 'PIPEWATCH_OPS_TARGET',
    parse: target,
    example: 'slack:#pipewatch-ops',
    secret: false,
    description:
      "where operational alerts go (the API's schema changed, a feed stopped succeeding, alerts stopped reaching a target), as `kind:value`: `slack:#ops`, `email:a@b.c`, `webhook:https://…`, `teams:https://…`, `pagerduty:<integration key>`",
  }),
  heartbeatUrl: variable({
    name: 'PIPEWATCH_HEARTBEAT_URL',
    parse: httpUrl,
    example: 'https://hc-ping.com/your-check-uuid',
    // The check's token is often the path: shown by scheme and host only.
    secret: true,
    description:
      "a dead man's switch (Healthchecks.io and the like): requested after each notices poll that succeeds, and `<url>/fail` after one that fails",
  }),
  chatAdmins: variable({
    name: 'PIPEWATCH_CHAT_ADMINS',
    parse: chatUserList,
    example: 'U0ALICE,W0BOB',
    secret: false,
    description:
      "the only users who may change a channel's subscriptions and silences from Slack or Discord (user ids, comma-separated); unset: anyone in the channel (on Discord, with Manage Channels)",
  }),
  chatSubscriptionsPerChannel: variable({
    name: 'PIPEWATCH_CHAT_SUBSCRIPTIONS_PER_CHANNEL',
    default: '100',
    parse: integer(1, 100_000),
    example: '100',
    secret: false,
    description: 'most subscriptions a chat channel may have',
  }),
  chatSubscriptionsPerWorkspace: variable({
    name: 'PIPEWATCH_CHAT_SUBSCRIPTIONS_PER_WORKSPACE',
    default: '1000',
    parse: integer(1, 1_000_000),
    example: '1000',
    secret: false,
    description:
      'most channel subscriptions made from chat in one Slack workspace or Discord server',
  }),
  chatRemindersPerUser: variable({
    name: 'PIPEWATCH_CHAT_REMINDERS_PER_USER',
    default: '100',
    parse: integer(1, 100_000),
    example: '100',
    secret: false,
    description:
      'most reminders one person may have; a Remind me whose deadline has passed no longer counts',
  }),
  chatRemindersPerWorkspace: variable({
    name: 'PIPEWATCH_CHAT_REMINDERS_PER_WORKSPACE',
    default: '1000',
    parse: integer(1, 1_000_000),
    example: '1000',
    secret: false,
    description: 'most reminders the people of one Slack workspace or Discord server may have',
  }),
  chatSilencesPerUser: variable({
    name: 'PIPEWATCH_CHAT_SILENCES_PER_USER',
    default: '20',
    parse: integer(1, 100_000),
    example: '20',
    secret: false,
    description: 'most silences one person may have in force from chat',
  }),
  chatSilencesPerWorkspace: variable({
    name: 'PIPEWATCH_CHAT_SILENCES_PER_WORKSPACE',
    default: '200',
    parse: integer(1, 1_000_000),
    example: '200',
    secret: false,
    description: 'most silences in force made from chat in one Slack workspace or Discord server',
  }),
  publicUrl: variable({
    name: 'PIPEWATCH_PUBLIC_URL',
    parse: httpUrl,
    example: 'https://pipewatch.example.com',
    secret: false,
    description:
      "where people reach pipewatch's HTTP port from outside (a reverse proxy's https URL): with it set, every email carries a one-click unsubscribe link",
  }),
  secretKey: variable({
    name: 'PIPEWATCH_SECRET_KEY',
    parse: z.string().min(32, 'must be at least 32 characters'),
    example: 'a-random-string-of-at-least-32-characters',
    secret: true,
    description:
      'key that signs unsubscribe links; unset: a key made on first start and kept in the database',
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
