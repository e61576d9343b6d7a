/**
 * A chat message pipewatch posted, as a delivery's `detail` records it (`ok channel=C0GAS
 * ts=1732111200.000100`, `ok channel=1203… message=1311…`): the Slack and Discord channels
 * write it, and an acknowledgement is found from it, since a click names the message it
 * was on (`alerts/escalations.ts`). One place writes and reads it, so the two cannot drift.
 */

/** A message on a platform whose messages carry an Acknowledge button. */
export interface PostedMessage {
  platform: 'slack' | 'discord';
  /** The channel's id, as the platform gives it with a click. */
  channel: string;
  /** Slack's `ts`, Discord's message id. */
  message: string;
}

/** The detail of a Slack post; `thread` is the `ts` of the message it replies under. */
export function slackPostedDetail(channel: string, ts: string, thread?: string): string {
  return `ok channel=${channel} ts=${ts}${thread ? ` thread=${thread}` : ''}`;
}

/** The detail of a Discord post; `replyTo` is the id of the message it replies to. */
export function discordPostedDetail(channel: string, id: string, replyTo?: string): string {
  return `ok channel=${channel} message=${id}${replyTo ? ` reply_to=${replyTo}` : ''}`;
}

const SLACK = /^ok channel=(\S+) ts=(\d+\.\d+)(?: |$)/;
const DISCORD = /^ok channel=(\S+) message=(\d+)(?: |$)/;

/** The message a delivery's detail names, for a target of `kind`; undefined for any other. */
export function postedMessageOf(kind: string, detail: string | null): PostedMessage | undefined {
  if (!detail) return undefined;
  const found =
    kind === 'slack' ? SLACK.exec(detail) : kind === 'discord' ? DISCORD.exec(detail) : null;
  const [, channel, message] = found ?? [];
  if (!channel || !message) return undefined;
  return { platform: kind === 'slack' ? 'slack' : 'discord', channel, message };
}
