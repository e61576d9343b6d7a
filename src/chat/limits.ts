/**
 * How much chat may store: subscriptions per channel and per workspace, reminders and
 * silences per person and per workspace. Each sync judges every subscription and checks
 * every silence, so what one person or one workspace may keep is bounded; each limit is a
 * variable whose default no real team meets, so a refusal meets only someone filling the
 * database on purpose or by script. A refusal names the limit and the variable that
 * raises it, and carries a code, which is what the callers branch on.
 *
 * A workspace is a Slack workspace or a Discord server; reminders set in a Discord direct
 * message (which has no server) count toward Discord's direct messages as one workspace.
 * The limits apply to whoever types in chat, admins too; the command line is the host's
 * and meets only the one per channel.
 */
import type { Config } from '../config/index.js';
import { VARIABLES } from '../config/variables.js';
import { targetKey } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';
import { counted } from '../lib/words.js';
import type { AsyncStore } from '../store/async-store.js';
import type { ChatCaller } from './types.js';

/** The limits, as the configuration reads them. */
export type ChatLimits = Config['chatLimits'];

/** The variable that sets each limit. */
export const CHAT_LIMIT_VARIABLES: Readonly<Record<keyof ChatLimits, string>> = {
  subscriptionsPerChannel: VARIABLES.chatSubscriptionsPerChannel.name,
  subscriptionsPerWorkspace: VARIABLES.chatSubscriptionsPerWorkspace.name,
  remindersPerUser: VARIABLES.chatRemindersPerUser.name,
  remindersPerWorkspace: VARIABLES.chatRemindersPerWorkspace.name,
  silencesPerUser: VARIABLES.chatSilencesPerUser.name,
  silencesPerWorkspace: VARIABLES.chatSilencesPerWorkspace.name,
};

/** Each limit when its variable is unset: the defaults the variables declare. */
export const DEFAULT_CHAT_LIMITS: Readonly<ChatLimits> = {
  subscriptionsPerChannel: Number(VARIABLES.chatSubscriptionsPerChannel.default),
  subscriptionsPerWorkspace: Number(VARIABLES.chatSubscriptionsPerWorkspace.default),
  remindersPerUser: Number(VARIABLES.chatRemindersPerUser.default),
  remindersPerWorkspace: Number(VARIABLES.chatRemindersPerWorkspace.default),
  silencesPerUser: Number(VARIABLES.chatSilencesPerUser.default),
  silencesPerWorkspace: Number(VARIABLES.chatSilencesPerWorkspace.default),
};

/** The code of every refusal for a limit: what callers branch on, never the text. */
export const LIMIT_REACHED = 'LIMIT_REACHED';

/** A limit that keeps something from being stored. */
export interface LimitRefusal {
  code: typeof LIMIT_REACHED;
  limit: keyof ChatLimits;
  /** `you have 100 reminders, the most one person may have (PIPEWATCH_…)`. */
  problem: string;
}

/** A refusal for `limit`, reached at `max` of `what`, in the words of `whose`. */
export function limitRefusal(
  limit: keyof ChatLimits,
  max: number,
  what: readonly [one: string, many: string],
  whose: { has: string; may: string },
): LimitRefusal {
  return {
    code: LIMIT_REACHED,
    limit,
    problem: `${whose.has} ${counted(max, ...what)}, the most ${whose.may} may have (${CHAT_LIMIT_VARIABLES[limit]} raises it, for whoever runs pipewatch)`,
  };
}

/** `slack:T0GAS`: the workspace a caller types in, as subscriptions and silences record it. */
export function workspaceKey(caller: ChatCaller): string {
  return `${caller.platform}:${caller.workspace ?? '-'}`;
}

/** The workspace in words: `this Slack workspace`, `this Discord server`. */
function workspaceWords(caller: ChatCaller): { has: string; may: string } {
  if (caller.platform === 'slack') return { has: 'this Slack workspace has', may: 'one workspace' };
  if (caller.workspace) return { has: 'this Discord server has', may: 'one server' };
  return { has: "Discord's direct messages hold", may: 'they' };
}

/** The caller as a direct-message target key (`slack_dm:U0ALICE`). */
export function personalTargetKey(caller: ChatCaller): string {
  return targetKey(
    caller.platform === 'slack'
      ? { kind: 'slack_dm', user: caller.user }
      : { kind: 'discord_dm', user: caller.user },
  );
}

const SUBSCRIPTIONS = ['subscription', 'subscriptions'] as const;
const REMINDERS = ['reminder', 'reminders'] as const;
const SILENCES = ['silence in force', 'silences in force'] as const;

/** The limits, checked against what the store holds. */
export class LimitCheck {
  constructor(
    private readonly store: AsyncStore,
    private readonly limits: ChatLimits,
  ) {}

  /** Why a new subscription of the caller's channel may not be stored; undefined if it may. */
  async subscription(caller: ChatCaller): Promise<LimitRefusal | undefined> {
    const max = this.limits.subscriptionsPerWorkspace;
    if ((await this.store.subscriptions.countInWorkspace(workspaceKey(caller))) < max)
      return undefined;
    return limitRefusal('subscriptionsPerWorkspace', max, SUBSCRIPTIONS, workspaceWords(caller));
  }

  /** Why a new reminder of the caller's may not be stored; undefined if it may. */
  async reminder(caller: ChatCaller, now: UtcIso): Promise<LimitRefusal | undefined> {
    const { subscriptions } = this.store;
    const mine = this.limits.remindersPerUser;
    if ((await subscriptions.countReminders({ target: personalTargetKey(caller) }, now)) >= mine)
      return limitRefusal('remindersPerUser', mine, REMINDERS, {
        has: 'you have',
        may: 'one person',
      });
    const all = this.limits.remindersPerWorkspace;
    if ((await subscriptions.countReminders({ workspace: workspaceKey(caller) }, now)) >= all)
      return limitRefusal('remindersPerWorkspace', all, REMINDERS, workspaceWords(caller));
    return undefined;
  }

  /** Why a new silence of the caller's may not be stored; undefined if it may. */
  async silence(caller: ChatCaller, now: UtcIso): Promise<LimitRefusal | undefined> {
    const { silences } = this.store;
    const mine = this.limits.silencesPerUser;
    if ((await silences.countInForce({ createdBy: silenceAuthor(caller) }, now)) >= mine)
      return limitRefusal('silencesPerUser', mine, SILENCES, {
        has: 'you have',
        may: 'one person',
      });
    const all = this.limits.silencesPerWorkspace;
    if ((await silences.countInForce({ workspace: workspaceKey(caller) }, now)) >= all)
      return limitRefusal('silencesPerWorkspace', all, SILENCES, workspaceWords(caller));
    return undefined;
  }
}

/** `slack:U0ALICE`: who made a silence from chat, as the silence records it. */
export function silenceAuthor(caller: ChatCaller): string {
  return `${caller.platform}:${caller.user}`;
}
