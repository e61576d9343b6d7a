/**
 * What a Discord message may go without when the channel refuses it for want of a
 * permission. Discord answers 403 50013 (Missing Permissions) to a message with files
 * when the bot's role lacks Attach Files in the channel, and to a reply
 * (`message_reference`) when it lacks Read Message History: the same answer as for a
 * channel it may not post in at all. The chart and the reply are extras, and must never
 * cost an alert: such a message is posted again without them, and only when that is
 * refused too is the channel taken for closed to pipewatch.
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

/** The extras a refused message carried: its chart files, its reply to an earlier message. */
export interface Extras {
  chart: boolean;
  reply: boolean;
}

/**
 * What each extra needs, and how a message without it reads. With both refused at once
 * Discord does not say which permission was missing, so the warning names both.
 */
const EXTRAS = {
  chart: { without: 'without its OAC chart', may: 'attach files', grant: 'Attach Files' },
  reply: {
    without: 'as a message of its own, not as a reply to the first alert of its notice',
    may: 'read the message history',
    grant: 'Read Message History',
  },
} as const;

/**
 * Says that a channel's alerts go without an extra. The first refusal of an extra in a
 * channel is a warning; the next ones, while it is still refused there, are at debug
 * level. The cause is a setting of the channel that lasts until someone changes it, and a
 * channel subscribed to capacity alerts may get one every cycle: a warning each time
 * would bury the rest of the log and tell nothing new (the alerts themselves arrive, so
 * nothing is missed but the picture or the thread). A post with that extra that gets
 * through forgets it, so losing the permission again warns again, and so does each start.
 */
export class LeftOut {
  /** `channel|extra` refused and not accepted since, the newest remembered. */
  private readonly refused = new Map<string, true>();

  constructor(private readonly log: Logger) {}

  /**
   * The message to `channel` (`where`, for the log) was posted without `extras`.
   * `toChannel`: a target's channel, whose permissions a server sets (not a DM).
   */
  left(channel: string, where: string, toChannel: boolean, extras: Extras): void {
    const kinds = (['chart', 'reply'] as const).filter((k) => extras[k]);
    if (kinds.length === 0) return;
    const known = kinds.every((k) => this.refused.has(`${channel}|${k}`));
    for (const k of kinds) remember(this.refused, `${channel}|${k}`, true);
    const said = kinds.map((k) => EXTRAS[k]);
    const grant = toChannel
      ? `; give pipewatch's role the ${said.map((s) => s.grant).join(' and ')} permission${said.length > 1 ? 's' : ''} in that channel`
      : '';
    const msg = `discord: the alert was posted ${said.map((s) => s.without).join(' and ')}: pipewatch may not ${said.map((s) => s.may).join(' or ')} in ${where} (Missing Permissions, ${MISSING_PERMISSIONS})${grant}`;
    if (known) this.log.debug({ channel }, msg);
    else this.log.warn({ channel }, msg);
  }

  /** A message with `extras` got through to `channel`: a later refusal there warns again. */
  accepted(channel: string, extras: Extras): void {
    if (extras.chart) this.refused.delete(`${channel}|chart`);
    if (extras.reply) this.refused.delete(`${channel}|reply`);
  }
}
