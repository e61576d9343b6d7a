/**
 * Bolt pointed at the Slack fake: the options an `App` needs to call the fake's Web API
 * and, in Socket Mode, to open its connection there, and a logger that keeps Bolt's lines
 * in memory instead of printing them, so a test can read what Bolt complained of.
 */
import { type Logger, LogLevel } from '@slack/bolt';
import type { SlackFake } from './slack.js';

/** A Bolt logger that keeps every line; `lines` as `level: message`. */
export function boltLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  let level = LogLevel.DEBUG;
  const keep =
    (at: string) =>
    (...msg: unknown[]) => {
      lines.push(
        `${at}: ${msg.map((m) => (m instanceof Error ? m.message : String(m))).join(' ')}`,
      );
    };
  return {
    lines,
    debug: keep('debug'),
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

/**
 * `App` options for the fake: the bot token, the app-level token, and `clientOptions.slackApiUrl`.
 * Bolt 5.1 hands `clientOptions` to the Socket Mode client too (as
 * `installerOptions.clientOptions`), so its `apps.connections.open` goes to the fake as well.
 */
export function boltOptions(fake: SlackFake, logger: Logger = boltLogger()) {
  return {
    token: fake.token,
    appToken: fake.appToken,
    clientOptions: { slackApiUrl: fake.url },
    logger,
  };
}
