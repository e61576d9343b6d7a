/**
 * What a new subscription's follow-up says it would have matched in the last 24 h, on a
 * real database with more notices than any one read used to return: the count is every
 * match, and the list of the newest says how many more there are.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatCaller, ChatReply } from '../../src/chat/types.js';
import type { UtcIso } from '../../src/lib/time.js';
import { makeNotice } from '../fakes/notice.js';
import { CORE_NOW, type CoreUnderTest, startChatCore } from '../support/chat-core.js';

/** More Transco constraints in the last 24 h than the 10,000 rows a read once stopped at. */
const MATCHING = 10_050;
const secondsAgo = (s: number) =>
  `${new Date(Date.parse(CORE_NOW) - s * 1000).toISOString().slice(0, 19)}Z` as UtcIso;

const caller: ChatCaller = {
  platform: 'slack',
  channel: 'C0GAS',
  channelName: 'gas',
  user: 'U0ALICE',
};

const list = (r: ChatReply) => r.sections.find((s) => s.kind === 'list');

let started: CoreUnderTest;
beforeEach(() => {
  started = startChatCore();
  const { store } = started;
  store.transaction(() => {
    // One every 8 s back from now (22 h); each followed by a TGP notice no rule below matches.
    for (let i = 0; i < MATCHING; i++) {
      const posted = secondsAgo(8 * i + 1);
      store.notices.upsert(
        makeNotice({ id: 1_000 + 2 * i, identifier: `C-${i}`, posted_at: posted }),
        CORE_NOW,
        false,
      );
      store.notices.upsert(
        makeNotice({ id: 1_001 + 2 * i, pipeline_slug: 'tgp', posted_at: posted }),
        CORE_NOW,
        false,
      );
    }
    // Two days old: outside the 24 h.
    store.notices.upsert(
      makeNotice({ id: 99, posted_at: secondsAgo(2 * 86_400) }),
      CORE_NOW,
      false,
    );
  });
});
afterEach(() => started.close());

describe('the follow-up of a new subscription', () => {
  it('counts every match of a rule naming pipelines, and lists the newest three and how many more', async () => {
    const answer = await started.core.command(caller, 'subscribe transco type:constraint');
    const follow = (await answer.followUp)!;
    expect(follow.text).toBe(`In the last 24 h it would have matched ${MATCHING} notices.`);
    const newest = list(follow);
    expect(newest?.kind === 'list' && newest.title).toBe(`The newest 3, and ${MATCHING - 3} more`);
    expect(newest?.kind === 'list' && newest.items.map((i) => i.text.split(':')[0])).toEqual([
      'transco C-0',
      'transco C-1',
      'transco C-2',
    ]);
  });

  it('counts every match of a rule naming no pipeline', async () => {
    const answer = await started.core.command(caller, 'subscribe all type:constraint');
    const follow = (await answer.followUp)!;
    expect(follow.text).toBe(`In the last 24 h it would have matched ${2 * MATCHING} notices.`);
    const newest = list(follow);
    expect(newest?.kind === 'list' && newest.title).toBe(
      `The newest 3, and ${2 * MATCHING - 3} more`,
    );
  });
});
