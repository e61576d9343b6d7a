/**
 * Which refusals of a post mean the Discord channel no longer takes the bot's messages
 * (it was deleted, or the bot lost sight of it or the right to post there), so that what
 * is subscribed there can pause instead of failing on every alert. A direct message
 * refused (50007) is a person's choice, not a channel gone, and is never read so. A
 * message with files or a reply refused with 50013 may lack only Attach Files or Read
 * Message History: the sender posts it again without them (`left-out.ts`) and reads only
 * that refusal here.
 */
import { DiscordAPIError } from '@discordjs/rest';

/**
 * What Discord's own code means in plain words: 10003 Unknown Channel (404), 50001
 * Missing Access and 50013 Missing Permissions (403).
 */
const CHANNEL_GONE: ReadonlyMap<number, string> = new Map([
  [10003, 'the channel was not found'],
  [50001, 'pipewatch can no longer see the channel'],
  [50013, 'pipewatch may not post in the channel'],
]);

/**
 * Why the channel is gone, `the channel was not found (10003)`, when the failure of a post
 * to it says so; undefined for any other failure.
 */
export function goneReason(error: unknown): string | undefined {
  if (!(error instanceof DiscordAPIError) || typeof error.code !== 'number') return undefined;
  const reason = CHANNEL_GONE.get(error.code);
  return reason && `${reason} (${error.code})`;
}
