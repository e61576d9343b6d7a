/**
 * Every delivery platform at once, for tests that run pipewatch as an operator does: the
 * fakes of Slack and Discord, a real SMTP server that requires STARTTLS before a login,
 * and a webhook receiver that checks signatures against the real clock, with the
 * variables that point pipewatch at them. The SMTP server's certificate is trusted
 * through `NODE_EXTRA_CA_CERTS`, as an operator trusts a private certificate authority,
 * so it only takes effect in a process started with these variables.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DiscordFake, startDiscordFake } from './discord.js';
import { FAKE_TOKEN as SLACK_TOKEN, type SlackFake, startSlackFake } from './slack.js';
import { type SmtpFake, startSmtpFake } from './smtp.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook.js';

/** A Discord bot token of the real form; the fake accepts it. */
export const DISCORD_TOKEN = 'MTIzNDU2Nzg5.GhIjKl.discordSecretPart';
export const WEBHOOK_SECRET = 'acceptance-webhook-secret-0123';
export const EMAIL_FROM = 'pipewatch <alerts@example.com>';

/** The running platforms and the environment that sends to them. */
export interface Platforms {
  slack: SlackFake;
  discord: DiscordFake;
  smtp: SmtpFake;
  hooks: WebhookReceiver;
  env: Record<string, string>;
  /** How many messages each has received so far; Slack's channels and DMs apart. */
  received(): PlatformCounts;
  close(): Promise<void>;
}

export interface PlatformCounts {
  /** Slack messages to channels. */
  channel: number;
  /** Slack direct messages. */
  dm: number;
  discord: number;
  email: number;
  webhook: number;
}

/** All the messages in `counts`. */
export function totalOf(counts: PlatformCounts): number {
  return counts.channel + counts.dm + counts.discord + counts.email + counts.webhook;
}

/** Starts the four platforms on loopback. */
export async function startPlatforms(): Promise<Platforms> {
  const slack = await startSlackFake();
  const discord = await startDiscordFake({ token: DISCORD_TOKEN });
  const smtp = await startSmtpFake();
  const hooks = await startWebhookReceiver({
    secret: WEBHOOK_SECRET,
    clock: { now: () => new Date() },
  });
  const ca = join(mkdtempSync(join(tmpdir(), 'pipewatch-ca-')), 'smtp-ca.pem');
  writeFileSync(ca, smtp.ca);
  return {
    slack,
    discord,
    smtp,
    hooks,
    env: {
      PIPEWATCH_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SLACK_BOT_TOKEN: SLACK_TOKEN,
      SLACK_API_URL: slack.url,
      DISCORD_BOT_TOKEN: DISCORD_TOKEN,
      DISCORD_API_URL: discord.url,
      SMTP_URL: smtp.url,
      NODE_EXTRA_CA_CERTS: ca,
      EMAIL_FROM,
    },
    received: () => ({
      channel: slack.posts.filter((p) => !p.channel.startsWith('D')).length,
      dm: slack.posts.filter((p) => p.channel.startsWith('D')).length,
      discord: discord.messages.length,
      email: smtp.messages.length,
      webhook: hooks.received.length,
    }),
    close: async () => {
      await Promise.all([slack.close(), discord.close(), smtp.close(), hooks.close()]);
    },
  };
}
