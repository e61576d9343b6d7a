/**
 * Channels where pipewatch may post but not attach files. Discord refuses a message with
 * files with 403 50013 (Missing Permissions) when the bot's role lacks Attach Files in
 * the channel, the same answer as for a channel it may not post in at all. A chart is
 * extra and must never cost an alert: such a message is posted again without its files,
 * and only when that is refused too is the channel taken for closed to pipewatch.
 */
import { DiscordAPIError } from '@discordjs/rest';
import type { Logger } from '../../lib/logger.js';
import type { Embed } from './limits.js';
import { remember } from './threads.js';

/** Discord's own code of a refusal for want of a permission. */
const MISSING_PERMISSIONS = 50013;

/** Whether a post's failure is Discord's 50013 Missing Permissions. */
export function missingPermissions(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === MISSING_PERMISSIONS;
}

/**
 * Takes out, in place, the images that show the message's own files
 * (`attachment://…`): a message without its files would show them broken.
 */
export function dropFileImages(embeds: readonly Embed[]): void {
  for (const e of embeds) if (e.image?.url.startsWith('attachment://')) delete e.image;
}

/**
 * Says that a channel's alerts go without their charts. The first refusal in a channel
 * is a warning; the next ones, while files are still refused there, are at debug level.
 * The cause is a setting of the channel that lasts until someone changes it, and a
 * channel subscribed to capacity alerts may get one every cycle: a warning each time
 * would bury the rest of the log and tell nothing new (the alerts themselves arrive, so
 * nothing is missed but the picture). A post with files that gets through forgets the
 * channel, so losing the permission again warns again, and so does each start.
 */
export class FilesRefused {
  /** Channels where files were refused and not accepted since, the newest remembered. */
  private readonly refused = new Map<string, true>();

  constructor(private readonly log: Logger) {}

  /**
   * The message to `channel` (`where`, for the log) was posted without its files.
   * `toChannel`: a target's channel, whose permissions a server sets (not a DM).
   */
  left(channel: string, where: string, toChannel: boolean): void {
    const known = this.refused.has(channel);
    remember(this.refused, channel, true);
    const grant = toChannel
      ? "; give pipewatch's role the Attach Files permission in that channel"
      : '';
    const msg = `discord: the alert was posted without its OAC chart: pipewatch may not attach files in ${where} (Missing Permissions, ${MISSING_PERMISSIONS})${grant}`;
    if (known) this.log.debug({ channel }, msg);
    else this.log.warn({ channel }, msg);
  }

  /** A message with files got through to `channel`: a later refusal there warns again. */
  accepted(channel: string): void {
    this.refused.delete(channel);
  }
}
