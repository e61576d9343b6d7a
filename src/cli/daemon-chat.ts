/**
 * The daemon's chat front ends: the Slack app, started when the bot token and either
 * the signing secret (HTTP) or the app token (Socket Mode) are set. A Slack app that
 * cannot start (a refused token, Slack unreachable) is logged and left out: alerts keep
 * flowing, only commands and buttons go unanswered until the next start.
 */
import { type SlackApp, startSlackApp } from '../channels/slack/app.js';
import type { ChatService } from '../chat/types.js';
import type { Config } from '../config/index.js';
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
): Promise<SlackApp | undefined> {
  try {
    const app = await startSlackApp({
      token: slack.botToken,
      signingSecret: slack.signingSecret,
      appToken: slack.appToken,
      apiUrl: slack.apiUrl,
      chat,
      // Signatures are judged by the wall clock, whatever time the daemon runs on.
      clock: ctx.clock,
      logger: ctx.logger,
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
      `Slack app not started, so /pipewatch and buttons go unanswered: ${(error as Error).message}`,
    );
    return undefined;
  }
}
