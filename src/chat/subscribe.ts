/**
 * Storing a subscription, wherever it was asked for (a chat command, a button, the
 * command line): the rule a command stands for, sent to one target, checked by the rule
 * schema, within the channel's limit, stored in one transaction that also resumes the
 * channel's paused subscriptions. A running daemon puts it in force at its next decision.
 */

import { type Target, targetItem, targetKey } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';
import { subscriptionName, subscriptionRule } from '../rules/subscription.js';
import type { Rule } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import type { SubscriptionSource } from '../store/subscriptions.js';
import { type ChatRuleCommand, chatRuleItem } from './grammar.js';
import { DEFAULT_CHAT_LIMITS, type LIMIT_REACHED, limitRefusal } from './limits.js';
import type { ChatPlatform } from './types.js';

/** `slack:C0GAS`: a chat channel as subscriptions and silences name it. */
export function channelKey(platform: ChatPlatform, channel: string): string {
  return `${platform}:${channel}`;
}

/** Where a subscription sends, what it belongs to, and who made it. */
export interface Placement {
  target: Target;
  /** The chat channel it belongs to (`slack:C0GAS`); null for a person's reminder or a target outside chat. */
  channel: string | null;
  source: SubscriptionSource;
  by: string;
}

/** Why nothing was stored: the rule schema refused the rule, or a limit was reached. */
export type NotStored =
  | { code: 'RULE_INVALID'; problem: string }
  | { code: typeof LIMIT_REACHED; problem: string };

/** What storing gave: the subscription, or why nothing was stored. */
export type Stored = { id: number; rule: Rule; resumed: number } | NotStored;

/** Stores the subscription a rule command stands for, once the rule schema accepts it. */
export async function storeSubscription(
  store: AsyncStore,
  at: Placement,
  command: ChatRuleCommand,
  now: UtcIso,
  options: { noticeId?: number; maxPerChannel?: number; workspace?: string } = {},
): Promise<Stored> {
  const { channel } = at;
  const max = options.maxPerChannel ?? DEFAULT_CHAT_LIMITS.subscriptionsPerChannel;
  if (channel && (await store.subscriptions.countByChannel(channel)) >= max)
    return limitRefusal('subscriptionsPerChannel', max, ['subscription', 'subscriptions'], {
      has: 'this channel has',
      may: 'it',
    });
  const { name: _name, ...item } = chatRuleItem(command, 'subscription', [targetItem(at.target)]);
  const row = {
    rule: item as Record<string, unknown>,
    target: targetKey(at.target),
    source: at.source,
    channel,
    created_by: at.by,
    created_at: now,
    notice_id: options.noticeId ?? null,
    workspace: options.workspace ?? null,
  };
  const checked = subscriptionRule({ ...row, id: 0, paused_at: null });
  if (!('kind' in checked)) return { code: 'RULE_INVALID', problem: checked.message };
  const { id, resumed } = await store.transaction(async () => ({
    resumed: channel ? await store.subscriptions.resumeChannel(channel) : 0,
    id: await store.subscriptions.add(row),
  }));
  return { id, rule: { ...checked, name: subscriptionName(id) } as Rule, resumed };
}
