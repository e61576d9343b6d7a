/**
 * A feed run whose decisions another replica's takeover rolled back (PostgreSQL): the
 * scheduler tells the daemon at once, so its term ends, and records no failure in the
 * feed state the replicas share, since nothing failed there; the new leader decides.
 */
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/ingest/scheduler.js';
import type { Fence } from '../../src/store/postgres/fence.js';
import { asyncStore, type Opened, STORES } from '../support/both-stores.js';
import { capturedLogger } from '../support/captured-logger.js';
import { ManualClock } from '../support/clock.js';

const FENCE: Fence = { name: 'leader', holder: 'replica-a', term: 1 };

const lead = (o: Opened & { kind: 'postgres' }, holder: string, term: number) =>
  o.pool.query(
    `INSERT INTO leader_lease (name, holder, term, acquired_at, renewed_at, expires_at)
     VALUES ('leader', $1, $2, now(), now(), now() + interval '1 hour')
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, term = excluded.term`,
    [holder, term],
  );

describe('a feed run rolled back by a takeover', () => {
  it('ends the term, and records no failure of the feed', async () => {
    const o = (await STORES[1][1]()) as Opened & { kind: 'postgres' };
    await lead(o, FENCE.holder, FENCE.term);
    const store = asyncStore(o, () => FENCE);
    const { logger, lines } = capturedLogger();
    let told = 0;
    const scheduler = new Scheduler(
      { store, clock: new ManualClock(), logger, onNotLeader: () => told++ },
      [
        {
          name: 'notices',
          intervalMs: 600_000,
          run: () =>
            store.transaction(async () => {
              await store.audit.record({
                at: '2026-11-20T12:00:00Z',
                rule: 'r',
                event: 'notice-new',
                subject: 'notice:1',
                notice_id: 1,
                decision: 'alert',
                reason: 'decided by the old leader',
              });
              await lead(o, 'replica-b', 2);
            }),
        },
      ],
    );
    const [feed] = scheduler.feeds;
    const outcome = await scheduler.runFeed(feed!, new AbortController().signal);
    expect(outcome.ok).toBe(false);
    expect(told).toBe(1);
    const [state] = await store.syncState.all();
    expect(state?.last_error ?? null).toBeNull();
    expect(state?.consecutive_failures ?? 0).toBe(0);
    expect(lines.join('')).toMatch(/notices: another replica leads now/);
    expect(await store.audit.forNotice(1)).toEqual([]);
  });
});
