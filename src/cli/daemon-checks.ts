/**
 * What the daemon checks before it starts, and again before it takes a rule change: that
 * every channel something sends to has its credentials, so that an alert is never decided
 * for a platform it cannot reach.
 */
import { CHANNEL_SETTINGS, type Channels } from '../delivery/channels.js';
import type { Target } from '../domain/targets.js';
import { withVerb } from '../lib/words.js';
import type { Rule, RuleProblem } from '../rules/types.js';

/**
 * Rules that send to a channel whose credentials are not set (its escalation targets
 * included): one problem per rule and channel, at the rule's position. And escalating
 * rules none of whose messages can be acknowledged (the Slack or Discord app is not set
 * up, so their messages carry no Acknowledge button): every alert of theirs would
 * escalate, which is a setting left out, not a choice.
 */
export function unconfiguredTargets(rules: readonly Rule[], channels: Channels): RuleProblem[] {
  const problems: RuleProblem[] = [];
  for (const rule of rules) {
    const escalate = rule.kind === 'notices' ? rule.escalate : undefined;
    const kinds = new Set([...rule.notify, ...(escalate?.to ?? [])].map((t) => t.kind));
    for (const kind of kinds) {
      if (channels.configured(kind)) continue;
      problems.push({
        ...rule.at,
        message: `rule '${rule.name}' sends to ${kind}, but ${withVerb(CHANNEL_SETTINGS[kind], 'is', 'are')} not set`,
      });
    }
    if (!escalate || rule.notify.some((t) => channels.acknowledgeable(t.kind))) continue;
    problems.push({
      ...rule.at,
      message: `rule '${rule.name}' escalates what nobody acknowledges, but its messages carry no Acknowledge button: set SLACK_SIGNING_SECRET or SLACK_APP_TOKEN for Slack, DISCORD_PUBLIC_KEY for Discord`,
    });
  }
  return problems;
}

/**
 * Why operational alerts could not be delivered, or `undefined` when they can (or are
 * printed in its stead): the ops target's channel has no credentials.
 */
export function unconfiguredOpsTarget(
  ops: Target | undefined,
  channels: Channels,
  standIn: boolean,
): string | undefined {
  if (!ops || standIn || channels.configured(ops.kind)) return undefined;
  return `PIPEWATCH_OPS_TARGET sends to ${ops.kind}, but ${withVerb(CHANNEL_SETTINGS[ops.kind], 'is', 'are')} not set`;
}
