/**
 * Where a rule sends its alerts: the `notify` items of a rule file, and the same targets
 * written on one line (`slack:#ops`, `email:ops@example.com`) as `send-test` takes them
 * and as `targetKey` prints them.
 */
import { z } from 'zod';
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
      return `webhook:${t.url}`;
    case 'console':
      return 'console';
  }
}

/**
 * The target as it may be shown, in output, logs and the audit trail:
 * `slack:#gas-constraints`, `email:ops@example.com`, and webhooks as
 * `webhook:https://hooks.example.com/…`, since a webhook's path, query and userinfo often
 * hold its token. `targetKey` stays the target's identity in keys and the database.
 */
export function targetLabel(target: Target): string {
  if (target.kind !== 'webhook') return targetKey(target);
  try {
    const url = new URL(target.url);
    return `webhook:${url.protocol}//${url.host}/…`;
  } catch {
    return 'webhook:…';
  }
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
  'console',
] as const;

const slackChannel = /^(#[a-z0-9_][a-z0-9._-]{0,79}|[CG][A-Z0-9]{4,})$/;
const slackUser = /^[UW][A-Z0-9]{4,}$/;
const snowflake = /^\d{17,20}$/;

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
    return { kind: 'console' };
  });

/**
 * A target written on one line: `slack:#ops`, `slack_dm:U0123ABCD`, `discord:<id>`,
 * `discord_dm:<id>`, `email:a@example.com,b@example.com`, `webhook:https://…`, `console`.
 * Throws with the same message a rule file would get.
 */
export function parseTarget(text: string): Target {
  const trimmed = text.trim();
  if (trimmed === 'console') return { kind: 'console' };
  const colon = trimmed.indexOf(':');
  const kind = colon < 0 ? trimmed : trimmed.slice(0, colon);
  if (!(TARGET_KINDS as readonly string[]).includes(kind) || colon < 0) {
    throw new Error(
      `unknown kind '${kind}'; write kind:value with one of ${TARGET_KINDS.filter((k) => k !== 'console').join(', ')}, or console`,
    );
  }
  const value = trimmed.slice(colon + 1);
  const result = targetSchema.safeParse({
    [kind]: kind === 'email' ? value.split(',').map((v) => v.trim()) : value,
  });
  if (!result.success) {
    throw new Error(`${kind}: ${result.error.issues[0]?.message ?? 'is invalid'}`);
  }
  return result.data;
}
