/**
 * Telling whoever runs a chat channel (the daemon, through its chat core) that a channel
 * no longer takes the bot's messages, from inside a send. The report is a side effect of
 * the send, which does not wait for it: one that fails, at once or later, is logged, and
 * the send fails or succeeds as it would have.
 */
import type { Logger } from '../lib/logger.js';
import { oneLine } from './text.js';

/**
 * Called when a post says its channel is gone, with why (`the channel was not found
 * (10003)`). A promise it returns is not waited for; its failure is logged too.
 */
export type OnChannelGone = (channel: string, reason: string) => unknown;

/**
 * `onChannelGone` (none: nothing is told) made safe to call from a send; its failure is
 * logged naming `platform`'s channel.
 */
export function channelGoneReporter(
  platform: string,
  onChannelGone: OnChannelGone | undefined,
  log: Logger,
): OnChannelGone {
  const failed = (channel: string, reason: string, error: unknown) => {
    const why = oneLine(error instanceof Error ? error.message : String(error));
    log.warn({ channel, reason }, `could not report ${platform} channel ${channel} gone: ${why}`);
  };
  return (channel, reason) => {
    if (!onChannelGone) return undefined;
    let told: unknown;
    try {
      told = onChannelGone(channel, reason);
    } catch (error) {
      failed(channel, reason, error);
      return undefined;
    }
    return told instanceof Promise
      ? told.catch((error: unknown) => failed(channel, reason, error))
      : undefined;
  };
}
