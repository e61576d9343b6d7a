/**
 * Which failures of a post mean the channel no longer takes the bot's messages (it was
 * deleted or archived, or the bot was removed), so that what is subscribed there can
 * pause instead of failing on every alert.
 */
import { webApi } from '@slack/bolt';

/** Slack errors saying a channel no longer takes the bot's messages. */
export const CHANNEL_GONE_ERRORS: ReadonlySet<string> = new Set([
  'channel_not_found',
  'is_archived',
  'channel_is_archived',
  'not_in_channel',
]);

/** The Slack error of a failed Web API call, when it says the channel is gone. */
export function goneReason(error: unknown): string | undefined {
  const e = error as { code?: string; data?: { error?: unknown } };
  if (e?.code !== webApi.ErrorCode.PlatformError) return undefined;
  const slack = e.data?.error;
  return typeof slack === 'string' && CHANNEL_GONE_ERRORS.has(slack) ? slack : undefined;
}
