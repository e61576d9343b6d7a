/**
 * Where a rule sends its alerts: the `notify` items of a rule file, and the same targets
 * written on one line (`slack:#ops`, `email:ops@example.com`) as `send-test` takes them
 * and as `targetKey` prints them.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { suggest } from '../lib/suggest.js';
import {
  emailAddress,
  exactlyOne,
  httpUrl,
  isEmailAddress,
  textValue,
  whenMapping,
} from '../lib/zod-checks.js';

/** Where an alert goes. */
export type Target =
  | { kind: 'slack'; channel: string }
  | { kind: 'slack_dm'; user: string }
  | { kind: 'discord'; channel: string }
  | { kind: 'discord_dm'; user: string }
  | { kind: 'email'; to: string[] }
  | { kind: 'webhook'; url: string }
  | { kind: 'teams'; url: string }
  | { kind: 'pagerduty'; routingKey: string }
  | { kind: 'console' };

export type TargetKind = Target['kind'];

/** `slack:#ops`, `email:a@example.com,b@example.com`: a stable text form, for keys and output. */
export function targetKey(t: Target): string {
  switch (t.kind) {
    case 'slack':
    case 'discord':
      return `${t.kind}:${t.channel}`;
    case 'slack_dm':
    case 'discord_dm':
      return `${t.kind}:${t.user}`;
    case 'email':
      return `email:${t.to.join(',')}`;
    case 'webhook':
    case 'teams':
      return `${t.kind}:${t.url}`;
    case 'pagerduty':
      return `pagerduty:${t.routingKey}`;
    case 'console':
      return 'console';
  }
}

/**
 * The part of a target that is a secret: a webhook's or a Teams workflow's URL (its path
 * or query often holds a token, a workflow's its `sig`), a PagerDuty integration key.
 * `undefined` for the kinds whose key may be shown as it is.
 */
export function targetSecret(target: Target): string | undefined {
  switch (target.kind) {
    case 'webhook':
    case 'teams':
      return target.url;
    case 'pagerduty':
      return target.routingKey;
    default:
      return undefined;
  }
}

/**
 * The target as it may be shown, in output, logs and the audit trail:
 * `slack:#gas-constraints`, `email:ops@example.com`, and webhooks as
 * `webhook:https://hooks.example.com/…`, since a webhook's path, query and userinfo often
 * hold its token (a Teams workflow's URL its `sig`), and PagerDuty's as
 * `pagerduty:…a1b2`, its integration key being a secret (its last 4 characters tell two
 * apart). `targetKey` stays the target's identity in keys and the database.
 */
export function targetLabel(target: Target): string {
  if (target.kind === 'pagerduty') return pagerDutyLabel(target.routingKey);
  if (target.kind !== 'webhook' && target.kind !== 'teams') return targetKey(target);
  try {
    const url = new URL(target.url);
    return `${target.kind}:${url.protocol}//${url.host}/…`;
  } catch {
    return `${target.kind}:…`;
  }
}

/**
 * A target as a key that may be shown (in alert keys, pacing keys, reasons): its key, but
 * for one whose key holds a secret, its label and a hash of the secret, so that two
 * workflows of one host, or two integration keys ending alike, stay apart.
 */
export function targetId(target: Target): string {
  const secret = targetSecret(target);
  if (secret === undefined) return targetKey(target);
  const hash = createHash('sha256').update(secret).digest('hex').slice(0, 16);
  return `${targetLabel(target)}#${hash}`;
}

/** `pagerduty:…a1b2`: an integration key as it may be shown, its last 4 characters at most. */
export function pagerDutyLabel(routingKey: string): string {
  return routingKey.length >= 32 ? `pagerduty:…${routingKey.slice(-4)}` : 'pagerduty:…';
}

/**
 * An outbox key (`rule|subject|target`) as it may be shown: its target part as
 * `targetLabel` shows it.
 */
export function keyLabel(key: string, target: Target): string {
  const id = targetKey(target);
  return key.endsWith(id) ? `${key.slice(0, key.length - id.length)}${targetLabel(target)}` : key;
}

export const TARGET_KINDS = [
  'slack',
  'slack_dm',
  'discord',
  'discord_dm',
  'email',
  'webhook',
  'teams',
  'pagerduty',
  'console',
] as const;

/** The hosts of Teams workflows (Power Automate, Logic Apps), by which a bare URL is recognised. */
const TEAMS_HOST =
  /^https?:\/\/[^/?#]*\.(?:powerplatform\.com|logic\.azure\.com)(?::\d+)?(?:[/?#]|$)/i;

const slackChannel = /^(#[a-z0-9_][a-z0-9._-]{0,79}|[CG][A-Z0-9]{4,})$/;
const slackUser = /^[UW][A-Z0-9]{4,}$/;
const snowflake = /^\d{17,20}$/;
/** A PagerDuty Events API v2 integration (routing) key: 32 characters, letters and digits. */
const routingKey = /^[A-Za-z0-9]{32}$/;

/** One `notify` item. */
export const targetSchema = z
  .strictObject({
    slack: textValue('a channel')
      .regex(slackChannel, "must be a channel name such as '#gas-ops' or a channel id (C…, G…)")
      .describe('Slack channel: "#name" or channel id')
      .optional(),
    slack_dm: textValue('a user')
      .refine(
        (v) => slackUser.test(v) || isEmailAddress(v),
        'must be a Slack user id (U…, W…) or email',
      )
      .describe('Slack user id or email address (looked up)')
      .optional(),
    discord: textValue('a channel id')
      .regex(snowflake, 'must be a Discord channel id (digits)')
      .describe('Discord channel id')
      .optional(),
    discord_dm: textValue('a user id')
      .regex(snowflake, 'must be a Discord user id (digits)')
      .describe('Discord user id')
      .optional(),
    email: z
      .union([emailAddress, z.array(emailAddress).min(1, 'must not be empty')], {
        error: 'must be an email address or a list of them',
      })
      .describe('address or list of addresses')
      .optional(),
    webhook: httpUrl.describe('URL to POST the alert to').optional(),
    teams: httpUrl
      .describe('URL of a Teams workflow ("Post to a channel when a webhook request is received")')
      .optional(),
    pagerduty: textValue('an integration key')
      // The key itself is never echoed: it is a secret.
      .refine(
        (v) => routingKey.test(v),
        'must be the 32-character integration key of an Events API v2 integration',
      )
      .describe('PagerDuty Events API v2 integration key (32 characters)')
      .optional(),
    console: z
      .union([z.literal(true), z.strictObject({})], { error: 'must be true (or {})' })
      .describe('print the alert on stdout')
      .optional(),
  })
  .superRefine(
    exactlyOne(
      TARGET_KINDS,
      `needs one of ${TARGET_KINDS.join(', ')}`,
      (key) => `one target per list item: put '${key}' in an item of its own`,
    ),
    whenMapping,
  )
  .meta({ minProperties: 1, maxProperties: 1 })
  .transform((t): Target => {
    if (t.slack !== undefined) return { kind: 'slack', channel: t.slack };
    if (t.slack_dm !== undefined) return { kind: 'slack_dm', user: t.slack_dm };
    if (t.discord !== undefined) return { kind: 'discord', channel: t.discord };
    if (t.discord_dm !== undefined) return { kind: 'discord_dm', user: t.discord_dm };
    if (t.email !== undefined) return { kind: 'email', to: [t.email].flat() };
    if (t.webhook !== undefined) return { kind: 'webhook', url: t.webhook };
    if (t.teams !== undefined) return { kind: 'teams', url: t.teams };
    if (t.pagerduty !== undefined) return { kind: 'pagerduty', routingKey: t.pagerduty };
    return { kind: 'console' };
  });

/**
 * A target as pipewatch keeps it (the JSON of a `Target`), read back from the database:
 * its form only. Values are not checked again as a rule file's are, so that a target
 * stored by an older pipewatch still reads.
 */
export const storedTargetSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('slack'), channel: z.string() }),
  z.object({ kind: z.literal('slack_dm'), user: z.string() }),
  z.object({ kind: z.literal('discord'), channel: z.string() }),
  z.object({ kind: z.literal('discord_dm'), user: z.string() }),
  z.object({ kind: z.literal('email'), to: z.array(z.string()) }),
  z.object({ kind: z.literal('webhook'), url: z.string() }),
  z.object({ kind: z.literal('teams'), url: z.string() }),
  z.object({ kind: z.literal('pagerduty'), routingKey: z.string() }),
  z.object({ kind: z.literal('console') }),
]) satisfies z.ZodType<Target>;

/** What each kind takes after its colon, with an example, for a kind written alone. */
const KIND_VALUES: Record<Exclude<TargetKind, 'console'>, string> = {
  slack: 'a channel: slack:#ops or slack:C0123ABCD',
  slack_dm: 'a user: slack_dm:U0123ABCD or slack_dm:ops@example.com',
  discord: 'a channel id: discord:123456789012345678',
  discord_dm: 'a user id: discord_dm:123456789012345678',
  email: 'an address: email:ops@example.com (or several, comma-separated)',
  webhook: 'a URL: webhook:https://hooks.example.com/…',
  teams: "a workflow's URL: teams:https://….powerplatform.com/…",
  pagerduty: 'an integration key: pagerduty:<32-character Events API v2 key>',
};

const KINDS_LINE = `write kind:value with one of ${TARGET_KINDS.filter((k) => k !== 'console').join(', ')}, or console`;

/** A kind as people type it: `Slack`, `slack-dm`, `EMAIL`. */
function kindOf(text: string): string {
  return text.trim().toLowerCase().replace(/-/g, '_');
}

/**
 * Why `text` is not a target, saying what it most likely meant: a kind alone (`slack`)
 * says what it needs after the colon, a value alone (`#ops`, an address, a URL) the kind
 * to put before it, a misspelt kind the one it resembles.
 */
function notATarget(text: string, colon: number): string {
  const kind = colon < 0 ? text : text.slice(0, colon);
  const known = kindOf(kind);
  if (colon < 0 && Object.hasOwn(KIND_VALUES, known))
    return `${known} needs ${KIND_VALUES[known as keyof typeof KIND_VALUES]}`;
  if (known === 'console') return 'console takes no value: write console alone';
  const t = echo(text);
  if (colon < 0 && text.startsWith('#')) return `'${t}' has no kind: write slack:${t}`;
  if (colon < 0 && isEmailAddress(text))
    return `'${t}' has no kind: write email:${t} (or slack_dm:${t} for a Slack direct message)`;
  if (colon < 0 && snowflake.test(text))
    return `'${t}' has no kind: write discord:${t} for a channel, discord_dm:${t} for a user`;
  // A URL is not echoed: its path and query often hold a webhook's token.
  if (/^https?$/i.test(kind) && text.slice(colon, colon + 3) === '://')
    return TEAMS_HOST.test(text)
      ? "a URL alone has no kind: write teams: before a Teams workflow's URL"
      : 'a URL alone has no kind: write webhook: before it';
  const meant = suggest(known, TARGET_KINDS);
  return `unknown kind '${echo(kind)}'${meant ? ` (did you mean '${meant}'?)` : ''}; ${KINDS_LINE}`;
}

/** What was typed, as an error quotes it: at most 60 characters. */
function echo(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * A target written on one line: `slack:#ops`, `slack_dm:U0123ABCD`, `discord:<id>`,
 * `discord_dm:<id>`, `email:a@example.com,b@example.com`, `webhook:https://…`,
 * `teams:https://…` (a Teams workflow's URL), `console`;
 * `pagerduty:<integration key>`, `console`;
 * the kind in any letter case and with `-` for `_` (`Slack:#ops`, `slack-dm:U0123ABCD`).
 * Throws with the same message a rule file would get, or, for what is not a target at
 * all, one saying what it most likely meant.
 */
export function parseTarget(text: string): Target {
  const trimmed = text.trim();
  if (kindOf(trimmed) === 'console') return { kind: 'console' };
  const colon = trimmed.indexOf(':');
  const kind = colon < 0 ? undefined : kindOf(trimmed.slice(0, colon));
  if (
    kind === undefined ||
    kind === 'console' ||
    !(TARGET_KINDS as readonly string[]).includes(kind)
  )
    throw new Error(notATarget(trimmed, colon));
  const value = trimmed.slice(colon + 1);
  const result = targetSchema.safeParse({
    [kind]: kind === 'email' ? value.split(',').map((v) => v.trim()) : value,
  });
  if (!result.success) {
    throw new Error(`${kind}: ${result.error.issues[0]?.message ?? 'is invalid'}`);
  }
  return result.data;
}

/** A target as a rule file's `notify` (or `escalate.to`) item writes it. */
export function targetItem(t: Target): Record<string, unknown> {
  switch (t.kind) {
    case 'slack':
    case 'discord':
      return { [t.kind]: t.channel };
    case 'slack_dm':
    case 'discord_dm':
      return { [t.kind]: t.user };
    case 'email':
      return { email: t.to.length === 1 ? t.to[0] : t.to };
    case 'webhook':
      return { webhook: t.url };
    case 'pagerduty':
      return { pagerduty: t.routingKey };
    case 'teams':
      return { teams: t.url };
    case 'console':
      return { console: true };
  }
}
