/**
 * What the commands that change something do: make a subscription or a reminder, remove
 * them, mute and unmute a channel, "Remind me" on one notice, and pause a channel's
 * subscriptions when the channel goes away. Each change is one transaction, checked by
 * the rule schema before anything is stored, and put in force at once.
 */
import { decideChannelGone } from '../alerts/operations.js';
import { equalMatchers } from '../alerts/silence-matchers.js';
import { silenceReachWarning } from '../alerts/silence-reach.js';
import { matchersText } from '../alerts/silences.js';
import { type Target, targetKey } from '../domain/targets.js';
import { formatDuration } from '../lib/duration.js';
import type { UtcIso } from '../lib/time.js';
import { compileFilter, prepareNotice } from '../rules/match.js';
import { ruleSummary } from '../rules/summary.js';
import type { Rule } from '../rules/types.js';
import type { StoredNotice } from '../store/notices.js';
import type { MuteInput } from './commands.js';
import type { ChatCoreDeps } from './deps.js';
import { type ChatRuleCommand, DEFAULT_BEFORE } from './grammar.js';
import { hint } from './hints.js';
import {
  type ChatLimits,
  DEFAULT_CHAT_LIMITS,
  LIMIT_REACHED,
  LimitCheck,
  personalTargetKey,
  silenceAuthor,
  workspaceKey,
} from './limits.js';
import { muteWindow } from './mute-window.js';
import { refusal } from './permissions.js';
import { channelKey, storeSubscription } from './subscribe.js';
import type { ChatAnswer, ChatCaller, ChatPlatform, ChatReply } from './types.js';

const reply = (isPrivate: boolean, text: string, more: ChatReply['sections'] = []): ChatReply => ({
  private: isPrivate,
  text,
  sections: [{ kind: 'text', text }, ...more],
});

/** How many of a new rule's recent matches its follow-up lists; the rest are only counted. */
const SHOWN_MATCHES = 3;

/** The caller's channel as a target, and the caller as a direct-message target. */
function channelTarget(caller: ChatCaller): Target {
  return { kind: caller.platform, channel: caller.channel };
}
function userTarget(caller: ChatCaller): Target {
  return caller.platform === 'slack'
    ? { kind: 'slack_dm', user: caller.user }
    : { kind: 'discord_dm', user: caller.user };
}
/**
 * The channels whose subscriptions and silences a caller's Remove may act on: the one
 * typed in, and from the home view those the platform says the user is in.
 */
function reachable(caller: ChatCaller): string[] {
  return [caller.channel, ...(caller.memberOf ?? [])].map((c) => channelKey(caller.platform, c));
}

/** What to do about a limit reached, after the refusal that names it. */
const REMOVE_SOME = ` Remove some with ${hint('unsubscribe ID')} (${hint('list')} shows them).`;

/** The commands and buttons that change subscriptions and silences. */
export class ChatRules {
  private readonly limits: ChatLimits;
  private readonly check: LimitCheck;

  constructor(
    private readonly deps: ChatCoreDeps,
    private readonly now: () => UtcIso,
  ) {
    this.limits = { ...DEFAULT_CHAT_LIMITS, ...deps.limits };
    this.check = new LimitCheck(deps.store, this.limits);
  }

  /** Whether subscription `id` is one of the caller's own reminders. */
  async isOwnReminder(caller: ChatCaller, id: number): Promise<boolean> {
    const row = await this.deps.store.subscriptions.get(id);
    return row?.target === targetKey(userTarget(caller));
  }

  /** `subscribe`, `oac` (this channel) and `remind` (the caller, by direct message). */
  async make(caller: ChatCaller, c: ChatRuleCommand): Promise<ChatAnswer> {
    const made = await this.create(caller, c);
    if ('private' in made) return { reply: made };
    const { id, rule, resumed } = made;
    const personal = c.verb === 'remind';
    const who = caller.userName ?? caller.user;
    const what = ruleSummary(rule);
    const said = personal
      ? `You will get reminders by direct message: ${what} (#${id}).`
      : `${who} subscribed this channel: ${what} (#${id}).`;
    const resumedText =
      resumed > 0
        ? ` ${resumed} paused subscription${resumed === 1 ? '' : 's'} of this channel resumed.`
        : '';
    return {
      reply: reply(personal, `${said}${resumedText}`),
      ...(rule.kind === 'capacity' ? {} : { followUp: this.recentMatches(rule) }),
    };
  }

  /** Stores a subscription once the rule schema accepts it; a reply saying why not otherwise. */
  private async create(
    caller: ChatCaller,
    c: ChatRuleCommand,
    noticeId?: number,
  ): Promise<{ id: number; rule: Rule; resumed: number } | ChatReply> {
    const personal = c.verb === 'remind';
    const target = personal ? userTarget(caller) : channelTarget(caller);
    const unset = this.deps.undelivered?.(target.kind);
    if (unset)
      return reply(
        true,
        `Not subscribed: pipewatch cannot post to ${target.kind.startsWith('slack') ? 'Slack' : 'Discord'} yet (${unset} is not set); ask whoever runs it. Nothing was stored.`,
      );
    const now = this.now();
    const limited = personal
      ? await this.check.reminder(caller, now)
      : await this.check.subscription(caller);
    const stored =
      limited ??
      (await storeSubscription(
        this.deps.store,
        {
          target,
          channel: personal ? null : channelKey(caller.platform, caller.channel),
          source: caller.platform,
          by: caller.user,
        },
        c,
        now,
        {
          ...(noticeId === undefined ? {} : { noticeId }),
          maxPerChannel: this.limits.subscriptionsPerChannel,
          workspace: workspaceKey(caller),
        },
      ));
    if ('problem' in stored)
      return reply(
        true,
        `Not ${personal ? 'set' : 'subscribed'}: ${stored.problem}. Nothing was stored.${stored.code === LIMIT_REACHED ? REMOVE_SOME : ''}`,
      );
    return stored;
  }

  /**
   * How many notices of the last 24 h a new rule would have matched, every one counted,
   * and the newest few shown with how many more there are.
   */
  private async recentMatches(rule: Rule): Promise<ChatReply | undefined> {
    // Once the answer is out: this reads a day of notices.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      if (rule.kind === 'capacity') return undefined;
      const since = new Date(Date.parse(this.now()) - 86_400_000).toISOString();
      const match = compileFilter(rule.filter);
      const exclude = rule.not ? compileFilter(rule.not) : undefined;
      const from = `${since.slice(0, 19)}Z`;
      const newest: StoredNotice[] = [];
      let matched = 0;
      await this.deps.store.notices.visitPostedSince(from, rule.filter.pipelines, (n) => {
        const p = prepareNotice(n);
        if (match(p) !== null || (exclude && exclude(p) === null)) return;
        matched++;
        if (newest.length < SHOWN_MATCHES) newest.push(n);
      });
      const items = newest.map((n) => ({
        text: `${n.pipeline_slug} ${n.identifier || `#${n.id}`}: ${n.subject} (${n.type}, posted ${n.posted_at})`,
      }));
      const count = `In the last 24 h it would have matched ${matched} notice${matched === 1 ? '' : 's'}.`;
      const title =
        matched > items.length
          ? `The newest ${items.length}, and ${matched - items.length} more`
          : 'The newest';
      return {
        private: true,
        text: count,
        sections: [
          { kind: 'text', text: count },
          ...(items.length > 0 ? [{ kind: 'list' as const, title, items }] : []),
        ],
      };
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'counting recent matches failed');
      return undefined;
    }
  }

  /** `unsubscribe ID` or `unsubscribe all`. */
  async unsubscribe(caller: ChatCaller, id: number | 'all'): Promise<ChatReply> {
    const { store } = this.deps;
    const channel = channelKey(caller.platform, caller.channel);
    const mine = targetKey(userTarget(caller));
    if (id === 'all') {
      const rows = [
        ...(caller.direct ? [] : await store.subscriptions.byChannel(channel)),
        ...(await store.subscriptions.byTarget(mine)),
      ];
      await store.transaction(async () => {
        for (const r of rows) await store.subscriptions.remove(r.id);
      });
      const text =
        rows.length === 0
          ? 'Nothing to remove: no subscriptions here and no reminders of yours.'
          : `Removed ${rows.length}: ${rows.map((r) => `#${r.id}`).join(', ')}.`;
      return reply(caller.direct === true || rows.length === 0, text);
    }
    return this.remove(caller, 'subscription', id);
  }

  /** A remove button, or `unsubscribe ID`: a subscription of this channel, or a reminder of the caller's. */
  async remove(
    caller: ChatCaller,
    what: 'subscription' | 'silence',
    id: number,
  ): Promise<ChatReply> {
    if (what === 'silence') {
      const refused = refusal(caller, this.deps.policy);
      if (refused) return reply(true, `Not ended: ${refused}.`);
      return this.unmute(caller, id);
    }
    const { store } = this.deps;
    const row = await store.subscriptions.get(id);
    const own = row?.target === targetKey(userTarget(caller));
    if (!row || (!own && !reachable(caller).includes(row.channel ?? '')))
      return reply(
        true,
        `There is no subscription #${id} in this channel, nor a reminder #${id} of yours; ${hint('list')} shows them.`,
      );
    if (!own) {
      const refused = refusal(caller, this.deps.policy);
      if (refused) return reply(true, `Not removed: ${refused}.`);
    }
    await store.subscriptions.remove(id);
    return reply(own, `Removed #${id}.`);
  }

  /**
   * `mute [PIPELINE] [type:T] for DURATION | until TIME [from TIME]`, and the Mute button:
   * a silence on this channel, from now or a later start.
   */
  async mute(caller: ChatCaller, input: MuteInput): Promise<ChatReply> {
    const now = this.now();
    const limited = await this.check.silence(caller, now);
    if (limited)
      return reply(
        true,
        `Not muted: ${limited.problem}. Nothing was stored; ${hint('unmute ID')} ends one (${hint('list')} shows them).`,
      );
    const window = muteWindow(now, input);
    if ('problem' in window)
      return reply(true, `Not muted: ${window.problem}. Nothing was stored.`);
    const { starts, ends, ms } = window;
    const targets = [channelKey(caller.platform, caller.channel)];
    if (caller.channelName && caller.platform === 'slack')
      targets.push(`slack:#${caller.channelName}`);
    const { pipeline } = input;
    const matchers = [
      ...equalMatchers('target', targets),
      ...(pipeline ? equalMatchers('pipeline', [pipeline]) : []),
      ...(input.matchers ?? []),
    ];
    const id = await this.deps.store.silences.add({
      matchers,
      starts_at: starts,
      ends_at: ends,
      created_by: silenceAuthor(caller),
      comment: null,
      created_at: now,
      workspace: workspaceKey(caller),
    });
    const reach = await silenceReachWarning(this.deps.store, matchers, now);
    const who = caller.userName ?? caller.user;
    const what = `${pipeline ?? 'every pipeline'}${input.fields ? ` ${input.fields}` : ''}`;
    const when =
      starts > now
        ? `from ${starts} until ${ends} (${formatDuration(ms)}; nothing is held back before then)`
        : `for ${formatDuration(ms)}, until ${ends}`;
    return reply(
      false,
      `${who} muted ${what} here ${when} (silence #${id}). What it holds back is summed up when it ends; ${hint(`unmute ${id}`)} ends it now.${reach ? `\nWarning: ${reach}.` : ''}`,
    );
  }

  /** `unmute [ID]`: one silence on this channel, or all of them. */
  async unmute(caller: ChatCaller, id: number | undefined): Promise<ChatReply> {
    const { store } = this.deps;
    const now = this.now();
    const channels = reachable(caller);
    const here = (await store.silences.activeOn(now, channels)).filter(
      (s) => id === undefined || s.id === id,
    );
    if (here.length === 0)
      return reply(
        true,
        id === undefined
          ? 'Nothing is muted in this channel.'
          : `There is no silence #${id} in force in this channel; ${hint('list')} shows them.`,
      );
    await store.transaction(async () => {
      for (const s of here)
        await store.silences.lift(s.id, `${caller.platform}:${caller.user}`, now);
    });
    const who = caller.userName ?? caller.user;
    return reply(
      false,
      `${who} ended ${here.map((s) => `silence #${s.id} (${matchersText(s)})`).join(', ')}.`,
    );
  }

  /**
   * The Remind me button: a direct-message reminder before this notice's deadline. A
   * second click on the same notice finds the first reminder and sets nothing more.
   */
  async remindMe(caller: ChatCaller, noticeId: number): Promise<ChatReply> {
    const { store } = this.deps;
    const notice = await store.notices.get(noticeId);
    if (!notice) return reply(true, `Notice #${noticeId} is no longer stored; nothing was set.`);
    const name = notice.identifier || `notice #${noticeId}`;
    if (!notice.response_at)
      return reply(
        true,
        `${notice.identifier || `Notice #${noticeId}`} has no response deadline to remind you of.`,
      );
    const already = (await store.subscriptions.byTarget(personalTargetKey(caller))).find(
      (s) => s.notice_id === noticeId,
    );
    if (already)
      return reply(
        true,
        `You already have a reminder before ${name}'s response deadline (${notice.response_at}) (#${already.id}); nothing more was set. ${hint(`unsubscribe ${already.id}`)} removes it.`,
      );
    const made = await this.create(
      caller,
      {
        verb: 'remind',
        deadlines: {
          field: 'response_at',
          before: [...DEFAULT_BEFORE],
          pipelines: [notice.pipeline_slug],
        },
      },
      noticeId,
    );
    if ('private' in made) return made;
    const planned = await this.deps.engine.remindNow(made.id);
    return reply(
      true,
      `You will get a direct message before ${name}'s response deadline (${notice.response_at}): ${planned} (#${made.id}).`,
    );
  }

  /** The bot can no longer post to a channel: its subscriptions pause. */
  async pause(platform: ChatPlatform, channel: string, reason: string): Promise<number> {
    const key = channelKey(platform, channel);
    const { store, opsTarget } = this.deps;
    const now = this.now();
    const paused = await store.transaction(async () => {
      const n = await store.subscriptions.pauseChannel(key, reason, now);
      if (n > 0 && opsTarget)
        await decideChannelGone({ store, now }, opsTarget, { channel: key, reason, paused: n });
      return n;
    });
    if (paused === 0) return 0;
    this.deps.wake?.();
    this.deps.logger.warn(
      { channel: key, reason, paused },
      `${key}: ${paused} subscription${paused === 1 ? '' : 's'} paused (${reason}); a subscribe there resumes them`,
    );
    return paused;
  }
}
