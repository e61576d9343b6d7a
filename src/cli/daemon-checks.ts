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
 * Rules that send to a channel whose credentials are not set: one problem per rule and
 * channel, at the rule's position.
 */
export function unconfiguredTargets(rules: readonly Rule[], channels: Channels): RuleProblem[] {
  const problems: RuleProblem[] = [];
  for (const rule of rules) {
    const kinds = new Set(rule.notify.map((t) => t.kind));
    for (const kind of kinds) {
      if (channels.configured(kind)) continue;
      problems.push({
        ...rule.at,
        message: `rule '${rule.name}' sends to ${kind}, but ${withVerb(CHANNEL_SETTINGS[kind], 'is', 'are')} not set`,
      });
    }
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
