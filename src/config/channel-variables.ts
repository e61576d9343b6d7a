/**
 * The variables that connect pipewatch to its delivery platforms (Slack, Discord,
 * PagerDuty, SMTP):
 * tokens, signing keys and API base URLs. They are a block of the one table in
 * `variables.ts`, which places them where docs/configuration.md lists them; a variable of this kind
 * is added here, and as a row of the table in docs/configuration.md.
 */
import { z } from 'zod';
import { httpUrl } from '../lib/zod-checks.js';
import { boolean, emailAddress, prefixed } from './parsers.js';
import { shownSmtpUrl, smtpUrl } from './smtp-url.js';
import { variable } from './variable.js';

/** The channel variables, in the order docs/configuration.md lists them. */
export const CHANNEL_VARIABLES = {
  slackBotToken: variable({
    name: 'SLACK_BOT_TOKEN',
    parse: prefixed('xoxb-', 'a bot token'),
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
    parse: prefixed('xapp-', 'an app-level token'),
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
  pagerdutyApiUrl: variable({
    name: 'PAGERDUTY_API_URL',
    parse: httpUrl,
    example: 'https://events.pagerduty.com',
    secret: false,
    description:
      "base URL of the PagerDuty Events API v2 (proxies, tests); events go to `<url>/v2/enqueue`; unset: PagerDuty's own",
  }),
  smtpUrl: variable({
    name: 'SMTP_URL',
    parse: smtpUrl,
    example: 'smtps://user:password@smtp.example.com:465',
    secret: true,
    shown: shownSmtpUrl,
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
} as const;
