/**
 * The daemon's chat front ends: the Slack app, started when the bot token and either
 * the signing secret (HTTP) or the app token (Socket Mode) are set, and the Discord app,
 * started when the application's public key is set (it answers over the HTTP port, and
 * needs no bot token to answer). A front end that cannot start (a refused token, Slack
 * unreachable, a key it cannot use) is logged and left out: alerts keep flowing, only
 * commands and buttons go unanswered until the next start.
 */

import type { ChatService } from '../chat/types.js';
import type { Config } from '../config/index.js';
import type { DiscordApp } from '../frontends/discord/app.js';
import type { RequestReplays } from '../frontends/replays.js';
import type { SlackApp } from '../frontends/slack/app.js';
import { errorMessage } from '../lib/error-text.js';
import type { CliContext } from './context.js';

/** What the Slack app needs, when Slack's app credentials are set. */
export type SlackAppSettings = Config['slack'] & { botToken: string };

/** The Slack app's settings, or undefined when it has not been set up. */
export function slackAppSettings(slack: Config['slack']): SlackAppSettings | undefined {
  if (!slack.botToken || !(slack.signingSecret || slack.appToken)) return undefined;
  return { ...slack, botToken: slack.botToken };
}

/** Starts the Slack app on the chat core; undefined when it could not start. */
export async function startChat(
  ctx: CliContext,
  slack: SlackAppSettings,
  chat: ChatService,
  replays: RequestReplays,
): Promise<SlackApp | undefined> {
  try {
    // Bolt and its web server load only when the Slack app runs.
    const { startSlackApp } = await import('../frontends/slack/app.js');
    const app = await startSlackApp({
      token: slack.botToken,
      signingSecret: slack.signingSecret,
      appToken: slack.appToken,
      apiUrl: slack.apiUrl,
      chat,
      // Signatures are judged by the wall clock, whatever time the daemon runs on.
      clock: ctx.clock,
      logger: ctx.logger,
      replays,
    });
    ctx.logger.info(
      { mode: app.mode, bot: app.botUserId },
      app.mode === 'socket'
        ? 'Slack app connected over Socket Mode: /pipewatch and buttons answer'
        : 'Slack app listening at POST /slack/events: /pipewatch and buttons answer',
    );
    return app;
  } catch (error) {
    ctx.logger.error(
      { err: error },
      `Slack app not started, so /pipewatch and buttons go unanswered: ${errorMessage(error)}`,
    );
    return undefined;
  }
}

/** What the Discord app needs, when its public key is set. */
export type DiscordAppSettings = Config['discord'] & { publicKey: string };

/** The Discord app's settings, or undefined when it has not been set up. */
export function discordAppSettings(discord: Config['discord']): DiscordAppSettings | undefined {
  return discord.publicKey ? { ...discord, publicKey: discord.publicKey } : undefined;
}

/** Starts the Discord app on the chat core; undefined when it could not start. */
export async function startDiscordChat(
  ctx: CliContext,
  discord: DiscordAppSettings,
  chat: ChatService,
  replays: RequestReplays,
): Promise<DiscordApp | undefined> {
  try {
    // Its REST client (`@discordjs/rest`) loads only when the Discord app runs.
    const { startDiscordApp } = await import('../frontends/discord/app.js');
    const app = startDiscordApp({
      publicKey: discord.publicKey,
      apiUrl: discord.apiUrl,
      chat,
      // Signatures are judged by the wall clock, whatever time the daemon runs on.
      clock: ctx.clock,
      logger: ctx.logger,
      replays,
    });
    ctx.logger.info(
      'Discord app listening at POST /discord/interactions: /pipewatch and buttons answer',
    );
    if (!discord.botToken)
      ctx.logger.warn(
        'DISCORD_BOT_TOKEN is not set: /pipewatch answers, but subscriptions made from Discord are refused until pipewatch can post there',
      );
    return app;
  } catch (error) {
    ctx.logger.error(
      { err: error },
      `Discord app not started, so /pipewatch and buttons go unanswered: ${errorMessage(error)}`,
    );
    return undefined;
  }
}
