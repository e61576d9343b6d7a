/**
 * Which failures of a post mean the channel no longer takes the bot's messages (it was
 * deleted or archived, or the bot was removed), so that what is subscribed there can
 * pause instead of failing on every alert.
 */
import * as webApi from '@slack/web-api';

/**
 * Why a channel no longer takes the bot's messages, in the words the chat core hears
 * from the app's events too, by the Slack error that says so.
 */
export const CHANNEL_GONE_REASONS: ReadonlyMap<string, string> = new Map([
  ['channel_not_found', 'the channel was not found'],
  ['is_archived', 'the channel was archived'],
  ['channel_is_archived', 'the channel was archived'],
  ['not_in_channel', 'pipewatch is not in the channel'],
]);

/**
 * Why the channel is gone, `the channel was archived (is_archived)`, when a failed Web
 * API call says it is.
 */
export function goneReason(error: unknown): string | undefined {
  const e = error as { code?: string; data?: { error?: unknown } };
  if (e?.code !== webApi.ErrorCode.PlatformError) return undefined;
  const slack = e.data?.error;
  const reason = typeof slack === 'string' ? CHANNEL_GONE_REASONS.get(slack) : undefined;
  return reason && `${reason} (${slack})`;
}
