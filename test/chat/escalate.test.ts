/**
 * `subscribe … escalate:30m to:TARGET` from chat: the subscription escalates as a rule
 * file's `escalate:` does, and each wrong word is named at its column.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatVocabulary, parseChatCommand } from '../../src/chat/grammar.js';
import { storeSubscription } from '../../src/chat/subscribe.js';
import type { ChatCaller } from '../../src/chat/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { CORE_NOW, type CoreUnderTest, startChatCore } from '../support/chat-core.js';

const KEY = 'R0ESCALATE0000000000000000009a1b';
const KNOWN: ChatVocabulary = {
  pipelines: ['transco'],
  types: ['Force Majeure'],
  categories: [],
  statuses: [],
};
const alice: ChatCaller = {
  platform: 'slack',
  channel: 'C0GAS',
  channelName: 'gas',
  user: 'U0ALICE',
};

let started: CoreUnderTest | undefined;
afterEach(() => started?.close());

function problems(text: string) {
  const parsed = parseChatCommand(text, KNOWN);
  if (parsed.ok) throw new Error(`accepted: ${JSON.stringify(parsed.command)}`);
  return parsed.problems.map((p) => [p.message, p.word, p.column]);
}

describe('subscribe with escalate:', () => {
  it('stores a subscription that escalates, in force at once, its key shown by its label', async () => {
    started = startChatCore();
    const { core, engine } = started;
    const answer = await core.command(
      alice,
      `subscribe transco type:force escalate:30m to:pagerduty:${KEY},email:oncall@example.com`,
    );
    expect(answer.reply.text).toContain(
      'subscribed this channel: transco; type force; escalate after 30m to pagerduty:…9a1b, email:oncall@example.com',
    );
    expect(answer.reply.text).not.toContain(KEY);
    const [rule] = await engine.rules();
    expect(rule).toMatchObject({
      kind: 'notices',
      notify: [{ kind: 'slack', channel: 'C0GAS' }],
      escalate: {
        afterMs: 30 * 60_000,
        to: [
          { kind: 'pagerduty', routingKey: KEY },
          { kind: 'email', to: ['oncall@example.com'] },
        ],
      },
    });
  });

  it('names each wrong word at its column', async () => {
    expect(problems('subscribe transco escalate:30m')).toEqual([
      ['escalate: needs where to: to:pagerduty:<integration key>', 'escalate:30m', 19],
    ]);
    expect(problems(`subscribe transco to:pagerduty:${KEY}`)).toEqual([
      [
        'to: says where an escalation goes; add after how long: escalate:30m',
        `to:pagerduty:${KEY}`,
        19,
      ],
    ]);
    expect(problems('subscribe transco escalate:30m to:pagerduty:short')).toEqual([
      [
        'pagerduty: must be the 32-character integration key of an Events API v2 integration',
        'pagerduty:short',
        35,
      ],
    ]);
    expect(problems(`subscribe transco escalate:20s to:pagerduty:${KEY}`)).toEqual([
      ['escalate: must be between 1m and 7d', '20s', 28],
    ]);
  });

  it('is refused for a target where nobody can acknowledge (subs add email:…)', async () => {
    started = startChatCore();
    const parsed = parseChatCommand(`subscribe transco escalate:30m to:pagerduty:${KEY}`, KNOWN);
    if (!parsed.ok || parsed.command.verb !== 'subscribe') throw new Error('not read');
    const stored = await storeSubscription(
      asyncStoreOf(started.store),
      {
        target: { kind: 'email', to: ['gas@example.com'] },
        channel: null,
        source: 'cli',
        by: 'cli:alice',
      },
      parsed.command,
      CORE_NOW,
    );
    expect(stored).toMatchObject({
      code: 'RULE_INVALID',
      problem: expect.stringContaining('needs a slack or discord channel in notify'),
    });
    expect(started.store.subscriptions.idsInForce()).toEqual([]);
  });
});
