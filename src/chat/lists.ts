/**
 * What `list` and the home view show: a channel's subscriptions, the caller's reminders,
 * and the silences that concern them, each with its id and a remove button.
 */
import { matchersText } from '../alerts/silences.js';
import { subscriptionRule } from '../rules/subscription.js';
import { ruleSummary } from '../rules/summary.js';
import type { AsyncStore } from '../store/async-store.js';
import type { SilenceRow } from '../store/silences.js';
import type { SubscriptionRow } from '../store/subscriptions.js';
import { hint } from './hints.js';
import { channelKey } from './subscribe.js';
import type { ChatCaller, ChatPlatform, ChatReply, ChatReplyItem } from './types.js';

/** One subscription as a list item: what it watches, where from, paused or not. */
function subscriptionItem(row: SubscriptionRow): ChatReplyItem {
  const rule = subscriptionRule(row);
  const what = 'kind' in rule ? ruleSummary(rule) : `not valid: ${rule.message}`;
  const paused = row.paused_at ? ` · paused since ${row.paused_at} (${row.paused_reason})` : '';
  return {
    id: row.id,
    text: `${what} · by ${row.created_by ?? 'cli'}, ${row.created_at.slice(0, 10)}${paused}`,
    remove: { kind: 'remove', what: 'subscription', id: row.id },
  };
}

function silenceItem(s: SilenceRow): ChatReplyItem {
  const until = s.ends_at === null ? 'until lifted' : `until ${s.ends_at}`;
  return {
    id: s.id,
    text: `${matchersText(s)} ${until} · by ${s.created_by}`,
    remove: { kind: 'remove', what: 'silence', id: s.id },
  };
}

/** The lists chat shows. */
export class ChatLists {
  constructor(
    private readonly store: AsyncStore,
    private readonly now: () => string,
  ) {}

  private silencesOf(targets: readonly string[], by?: string): Promise<SilenceRow[]> {
    return this.store.silences.activeOn(this.now() as never, targets, by);
  }

  /** `list`: this channel's subscriptions and silences, and the caller's reminders. */
  async list(caller: ChatCaller): Promise<ChatReply> {
    const channel = channelKey(caller.platform, caller.channel);
    const dm = `${caller.platform}_dm:${caller.user}`;
    const subs = caller.direct ? [] : await this.store.subscriptions.byChannel(channel);
    const reminders = await this.store.subscriptions.byTarget(dm);
    const silences = await this.silencesOf([channel]);
    const paused = subs.filter((s) => s.paused_at !== null).length;
    const text = `${subs.length} subscription${subs.length === 1 ? '' : 's'} here${paused ? ` (${paused} paused)` : ''}, ${reminders.length} reminder${reminders.length === 1 ? '' : 's'} of yours, ${silences.length} silence${silences.length === 1 ? '' : 's'} in force.`;
    return {
      private: true,
      text,
      sections: [
        ...(caller.direct
          ? []
          : [
              {
                kind: 'list' as const,
                title: 'Subscriptions of this channel',
                items: subs.map(subscriptionItem),
                empty: `None yet: ${hint('subscribe PIPELINES type:…')} makes one.`,
              },
            ]),
        {
          kind: 'list',
          title: 'Your reminders',
          items: reminders.map(subscriptionItem),
          empty: `None: ${hint('remind PIPELINES before:24h,2h')} makes one.`,
        },
        {
          kind: 'list',
          title: 'Silences in force here',
          items: silences.map(silenceItem),
          empty: 'Nothing is muted here.',
        },
      ],
    };
  }

  /** The home view: the user's reminders and silences, and the subscriptions of their channels. */
  async home(
    platform: ChatPlatform,
    user: string,
    channels: readonly string[],
  ): Promise<ChatReply> {
    const keys = channels.map((c) => channelKey(platform, c));
    const reminders = await this.store.subscriptions.byTarget(`${platform}_dm:${user}`);
    const silences = await this.silencesOf(keys, `${platform}:${user}`);
    const sections: ChatReply['sections'] = [
      {
        kind: 'list',
        title: 'Your reminders',
        items: reminders.map(subscriptionItem),
        empty: `None. ${hint('/pipewatch remind PIPELINES before:24h,2h')} makes one.`,
      },
      {
        kind: 'list',
        title: 'Silences in force',
        items: silences.map(silenceItem),
        empty: 'Nothing is muted in your channels.',
      },
    ];
    for (const key of keys) {
      const subs = await this.store.subscriptions.byChannel(key);
      if (subs.length === 0) continue;
      sections.push({
        kind: 'list',
        title: `Subscriptions of ${key.slice(platform.length + 1)}`,
        items: subs.map(subscriptionItem),
      });
    }
    return {
      private: true,
      text: 'pipewatch: your reminders, silences and subscriptions',
      sections,
    };
  }
}
