/**
 * The chat state a busy install can gather, for the benchmarks and tests that measure a
 * sync against it: channel subscriptions made through the chat core (`subscriptions.ts`),
 * and one person's many reminders and mutes, stored as `remind` and `mute` store them
 * (the same rule items, the same matchers) but written straight into the store, so that
 * whatever limits chat puts on one person do not decide what is measured here.
 */
import { equalMatchers } from '../src/alerts/silence-matchers.js';
import { type ChatRuleCommand, chatRuleItem, parseChatCommand } from '../src/chat/grammar.js';
import { targetItem } from '../src/domain/targets.js';
import type { UtcIso } from '../src/lib/time.js';
import { PIPELINES } from '../src/simulator/pipelines.js';
import type { Store } from '../src/store/index.js';
import { REMINDERS, typed } from './chat-ack-side.js';
import { benchChannel } from './subscriptions.js';

/** The person whose reminders and mutes these are. */
export const HOARDER = 'U0HOARDER';

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z` as UtcIso;

/**
 * `count` reminders of one Slack user, by direct message, the `remind` commands of the
 * `chat_ack` mix in turn (`remind transco`, `remind tennessee before:24h,2h`, …), as
 * `remind` stores them. Returns their ids.
 */
export function storeReminders(store: Store, count: number, now: Date): number[] {
  const vocabulary = {
    pipelines: store.pipelines.all().map((p) => p.slug),
    ...store.notices.vocabulary(),
    locations: () => undefined,
  };
  const commands = REMINDERS.map((options) => {
    const parsed = parseChatCommand(typed('remind', options), vocabulary);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    return parsed.command as ChatRuleCommand;
  });
  const target = { kind: 'slack_dm' as const, user: HOARDER };
  return store.transaction(() =>
    Array.from({ length: count }, (_, i) => {
      const { name: _name, ...item } = chatRuleItem(commands[i % commands.length]!, 'sub', [
        targetItem(target),
      ]);
      return store.subscriptions.add({
        rule: item as Record<string, unknown>,
        target: `slack_dm:${HOARDER}`,
        source: 'slack',
        channel: null,
        created_by: HOARDER,
        created_at: iso(now.getTime()),
        notice_id: null,
      });
    }),
  );
}

/**
 * `count` mutes by one Slack user, as `mute [PIPELINE] for DURATION` stores them, for a
 * day to thirty: on the `subscribed` channels (`benchChannel(0…)`, by id and by name)
 * and as many again that nothing is subscribed in, in turn; one in fifty on every
 * pipeline, the others on one. Most alerts to a subscribed channel meet some of them and
 * are held by none, which is what checking every silence costs most on. And
 * `operatorSilences` as `pipewatch silence add` stores them, on no target: each on a rule
 * that no longer exists, half on a pipeline too. Returns how many were stored.
 */
export function storeMutes(
  store: Store,
  count: number,
  subscribed: number,
  now: Date,
  operatorSilences = 13,
): number {
  const at = iso(now.getTime());
  const common = { starts_at: at, created_by: `slack:${HOARDER}`, comment: null, created_at: at };
  const slugs = PIPELINES.map((p) => p.slug);
  store.transaction(() => {
    for (let i = 0; i < count; i++) {
      const n = i % (2 * subscribed);
      const pipeline = i % 50 === 0 ? undefined : slugs[(i * 7) % slugs.length]!;
      store.silences.add({
        ...common,
        matchers: [
          ...equalMatchers('target', [`slack:${benchChannel(n)}`, `slack:#gas-desk-${n}`]),
          ...(pipeline ? equalMatchers('pipeline', [pipeline]) : []),
        ],
        ends_at: iso(now.getTime() + (1 + (i % 30)) * 86_400_000),
      });
    }
    for (let i = 0; i < operatorSilences; i++)
      store.silences.add({
        ...common,
        created_by: 'cli:operator',
        matchers: [
          ...equalMatchers('rule', [`sub-${900_000 + i}`]),
          ...(i % 2 === 0 ? equalMatchers('pipeline', [slugs[i % slugs.length]!]) : []),
        ],
        ends_at: iso(now.getTime() + 7 * 86_400_000),
      });
  });
  return count + operatorSilences;
}
