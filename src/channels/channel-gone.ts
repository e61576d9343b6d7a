/**
 * Telling whoever runs a chat channel (the daemon, through its chat core) that a channel
 * no longer takes the bot's messages, from inside a send. The report is a side effect of
 * the send: one that fails is logged, and the send fails or succeeds as it would have.
 */
import type { Logger } from '../lib/logger.js';
import { oneLine } from './text.js';

/** Called when a post says its channel is gone, with why (`the channel was not found (10003)`). */
export type OnChannelGone = (channel: string, reason: string) => void;

/**
 * `onChannelGone` (none: nothing is told) made safe to call from a send; its failure is
 * logged naming `platform`'s channel.
 */
export function channelGoneReporter(
  platform: string,
  onChannelGone: OnChannelGone | undefined,
  log: Logger,
): OnChannelGone {
  return (channel, reason) => {
    if (!onChannelGone) return;
    try {
      onChannelGone(channel, reason);
    } catch (error) {
      const why = oneLine(error instanceof Error ? error.message : String(error));
      log.warn({ channel, reason }, `could not report ${platform} channel ${channel} gone: ${why}`);
    }
  };
}
