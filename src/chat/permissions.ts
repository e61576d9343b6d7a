/**
 * Who may change what from chat. Reminders are one's own and listing is harmless, so
 * anyone may. A channel's subscriptions and silences belong to the channel: with
 * `PIPEWATCH_CHAT_ADMINS` set only those users may change them; without it anyone in the
 * channel may on Slack, and on Discord a member who may manage the channel (Discord's own
 * sense of who runs a channel).
 */

import { hint } from './hints.js';
import type { ChatCaller } from './types.js';

/** What the chat core is told about who may change channels. */
export interface ChatPolicy {
  /** Platform user ids (`U0ALICE`, Discord snowflakes); empty: nobody is singled out. */
  admins: ReadonlySet<string>;
}

/** Why `caller` may not change this channel's subscriptions or silences; undefined if they may. */
export function refusal(caller: ChatCaller, policy: ChatPolicy): string | undefined {
  if (policy.admins.has(caller.user)) return undefined;
  if (policy.admins.size > 0)
    return `only pipewatch's admins (PIPEWATCH_CHAT_ADMINS) may change this channel's subscriptions and silences; ask one of them, or use ${hint('remind')} for reminders of your own`;
  if (caller.platform === 'discord' && caller.canManageChannel !== true)
    return `changing this channel's subscriptions and silences needs the Manage Channels permission here; ${hint('remind')} and ${hint('list')} are open to everyone`;
  return undefined;
}
