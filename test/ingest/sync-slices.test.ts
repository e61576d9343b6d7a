/**
 * A sync stores a page in slices: each notice that changed is stored and decided in a
 * transaction with nothing after it, and whatever waits on the event loop runs between
 * two, so that a page whose notices fan out to thousands of alerts holds back no HTTP
 * answer for long. A failure part-way keeps the slices before it with their decisions;
 * the next sync decides the rest, and nothing twice.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { NoticeEvent } from '../../src/ingest/events.js';
import { type Harness, harness, syncOnce, testSyncOptions } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** One slice per notice that changed. */
const options = { ...testSyncOptions, sliceBudgetMs: 0 };

/** Five new notices upstream, posted a minute apart; their ids, oldest first. */
function publishFive(): number[] {
  return [1, 2, 3, 4, 5].map((i) => {
    h.simClock.advance(60_000);
    return h.sim.control.addNotice({ pipeline_slug: 'transco', subject: `Notice ${i}` }).id;
  });
}

/** A decision written by the hooks, in the transaction that stored its notice. */
async function decide(events: NoticeEvent[]): Promise<void> {
  for (const e of events)
    await h.async.audit.record({
      at: e.seenAt,
      rule: 'slices',
      event: `notice-${e.change}`,
      subject: `notice:${e.notice.id}`,
      notice_id: e.notice.id,
      decision: 'alert',
      reason: 'decided',
    });
}

describe('a page stored in slices', () => {
  it('lets the event loop turn between two notices it decides', async () => {
    h = await harness();
    await syncOnce(h, options);
    const ids = publishFive();
    const log: string[] = [];
    h.hooks.notices = async (events) => {
      for (const e of events) log.push(`notice ${e.notice.id}`);
    };
    let done = false;
    const turn = () => {
      if (done) return;
      log.push('turn');
      setImmediate(turn);
    };
    setImmediate(turn);
    const result = await syncOnce(h, options).finally(() => {
      done = true;
    });
    expect(result.new).toBe(5);
    const decided = log.filter((l) => l.startsWith('notice'));
    expect(decided).toEqual(ids.toReversed().map((id) => `notice ${id}`));
    // Between any two notices decided, the loop turned at least once.
    const between = log.slice(log.indexOf(decided[0]!), log.indexOf(decided.at(-1)!) + 1);
    expect(between.filter((l) => l === 'turn').length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < between.length; i++)
      expect([between[i - 1], between[i]].every((l) => l!.startsWith('notice'))).toBe(false);
  });

  it('keeps the slices stored before a failure with their decisions; the next sync decides the rest once', async () => {
    h = await harness();
    await syncOnce(h, options);
    const ids = publishFive();
    let handed = 0;
    h.hooks.notices = async (events) => {
      handed += events.length;
      if (handed === 3) throw new Error('the decision failed');
      await decide(events);
    };
    await expect(syncOnce(h, options)).rejects.toThrow('the decision failed');
    // Newest first: the two newest are stored and decided; the third and the rest not.
    const stored = ids.filter((id) => h.store.notices.get(id) !== undefined);
    expect(stored).toEqual(ids.slice(3));
    const decisions = () => ids.map((id) => h.store.audit.forNotice(id).length);
    expect(decisions()).toEqual([0, 0, 0, 1, 1]);

    h.hooks.notices = decide;
    const result = await syncOnce(h, options);
    expect(result.new).toBe(3);
    expect(decisions()).toEqual([1, 1, 1, 1, 1]);
  });
});
