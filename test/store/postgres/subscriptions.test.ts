/**
 * Subscriptions behave the same on SQLite and on PostgreSQL: ids in order of making,
 * rules back as objects, the counts the chat limits rest on, pauses by channel, and a
 * revision that moves with every row changed.
 */
import { describe, expect, it } from 'vitest';
import { on } from '../../../src/store/postgres/queryable.js';
import { PgSubscriptionStore } from '../../../src/store/postgres/subscriptions.js';
import type { NewSubscription } from '../../../src/store/subscriptions.js';
import { insertRow, noticeRow, type Opened, STORES, sql } from '../../support/both-stores.js';

const NOW = '2026-11-20T15:00:00Z';

function subscriptions(o: Opened) {
  return o.kind === 'sqlite' ? o.store.subscriptions : new PgSubscriptionStore(on(o.pool));
}

function sub(over: Partial<NewSubscription> = {}): NewSubscription {
  return {
    rule: { notices: { pipelines: ['transco'] }, notify: ['slack:C0GAS'] },
    target: 'slack:C0GAS',
    source: 'slack',
    channel: 'slack:C0GAS',
    created_by: 'U0ALICE',
    created_at: NOW,
    notice_id: null,
    ...over,
  };
}

describe.each(STORES)('%s (postgres and sqlite alike)', (_, open) => {
  it('stores subscriptions and gives them back, oldest first', async () => {
    const subs = subscriptions(await open());
    const first = await subs.add(sub({ workspace: 'slack:T0GAS' }));
    const second = await subs.add(
      sub({
        rule: { notices: { ids: [101] }, notify: ['slack_dm:U0BOB'] },
        target: 'slack_dm:U0BOB',
        channel: null,
        created_by: null,
        source: 'cli',
        notice_id: 101,
      }),
    );
    expect(second).toBeGreaterThan(first);
    expect(typeof first).toBe('number');
    expect(await subs.get(first)).toEqual({
      id: first,
      rule: { notices: { pipelines: ['transco'] }, notify: ['slack:C0GAS'] },
      target: 'slack:C0GAS',
      source: 'slack',
      channel: 'slack:C0GAS',
      created_by: 'U0ALICE',
      created_at: NOW,
      notice_id: null,
      paused_at: null,
      paused_reason: null,
    });
    expect(await subs.get(second)).toMatchObject({ notice_id: 101, channel: null, source: 'cli' });
    expect(await subs.get(second + 1)).toBeUndefined();
    expect((await subs.all()).map((s) => s.id)).toEqual([first, second]);
    expect((await subs.byChannel('slack:C0GAS')).map((s) => s.id)).toEqual([first]);
    expect((await subs.byTarget('slack_dm:U0BOB')).map((s) => s.id)).toEqual([second]);
    expect(await subs.byTarget('slack_dm:U0NOBODY')).toEqual([]);
  });

  it('never gives a removed subscription’s id again', async () => {
    const subs = subscriptions(await open());
    const first = await subs.add(sub());
    const second = await subs.add(sub());
    expect(await subs.remove(second)).toBe(true);
    expect(await subs.remove(second)).toBe(false);
    expect(await subs.add(sub())).toBe(second + 1);
    expect(await subs.idsInForce()).toEqual([first, second + 1]);
  });

  it('finds no subscription by an id no row can have, as typed in chat', async () => {
    const subs = subscriptions(await open());
    await subs.add(sub());
    for (const id of [1e20, 2 ** 63, 1.5, Number.NaN, -1, 0]) {
      expect(await subs.get(id), String(id)).toBeUndefined();
      expect(await subs.remove(id), String(id)).toBe(false);
    }
    expect(await subs.countByChannel('slack:C0GAS')).toBe(1);
  });

  it('counts by channel and by workspace, channel subscriptions only', async () => {
    const subs = subscriptions(await open());
    await subs.add(sub({ workspace: 'slack:T0GAS' }));
    await subs.add(sub({ workspace: 'slack:T0GAS' }));
    await subs.add(
      sub({ channel: 'slack:C0OIL', target: 'slack:C0OIL', workspace: 'slack:T0GAS' }),
    );
    await subs.add(sub({ channel: null, target: 'slack_dm:U0ALICE', workspace: 'slack:T0GAS' }));
    await subs.add(sub({ channel: 'slack:C0ELSE', workspace: 'slack:T0ELSE' }));
    expect(await subs.countByChannel('slack:C0GAS')).toBe(2);
    expect(await subs.countByChannel('slack:C0NONE')).toBe(0);
    expect(await subs.countInWorkspace('slack:T0GAS')).toBe(3);
    expect(await subs.countInWorkspace('slack:T0NONE')).toBe(0);
  });

  it('counts only the reminders still to come, by person and by workspace', async () => {
    const o = await open();
    const subs = subscriptions(o);
    await insertRow(o, 'notices', noticeRow(101, { response_at: '2026-11-20T18:00:00Z' }));
    await insertRow(o, 'notices', noticeRow(102, { response_at: '2026-11-20T14:00:00Z' }));
    await insertRow(o, 'notices', noticeRow(103, { response_at: null }));
    const dm = (notice_id: number | null, target = 'slack_dm:U0ALICE') =>
      subs.add(sub({ channel: null, target, notice_id, workspace: 'slack:T0GAS' }));
    await dm(null); // a standing rule sent to a person: counts
    await dm(101); // its deadline is ahead: counts
    await dm(102); // its deadline passed
    await dm(103); // no deadline
    await dm(999); // its notice is not stored
    await dm(101, 'slack_dm:U0BOB');
    await subs.add(sub({ workspace: 'slack:T0GAS' })); // a channel's: never a reminder
    expect(await subs.countReminders({ target: 'slack_dm:U0ALICE' }, NOW)).toBe(2);
    expect(await subs.countReminders({ workspace: 'slack:T0GAS' }, NOW)).toBe(3);
    expect(await subs.countReminders({ workspace: 'slack:T0GAS' }, '2026-11-20T18:00:00Z')).toBe(1);
    expect(await subs.countReminders({ target: 'slack_dm:U0NOBODY' }, NOW)).toBe(0);
  });

  it('pauses and resumes a channel’s subscriptions, and counts them', async () => {
    const subs = subscriptions(await open());
    const a = await subs.add(sub());
    const b = await subs.add(sub());
    const other = await subs.add(sub({ channel: 'slack:C0OIL', target: 'slack:C0OIL' }));
    expect(await subs.counts()).toEqual({ total: 3, paused: 0 });
    expect(await subs.pauseChannel('slack:C0GAS', 'channel_not_found', NOW)).toBe(2);
    expect(await subs.pauseChannel('slack:C0GAS', 'again', '2026-11-20T16:00:00Z')).toBe(0);
    expect(await subs.get(a)).toMatchObject({ paused_at: NOW, paused_reason: 'channel_not_found' });
    expect(await subs.idsInForce()).toEqual([other]);
    expect(await subs.counts()).toEqual({ total: 3, paused: 2 });
    expect(await subs.resumeChannel('slack:C0GAS')).toBe(2);
    expect(await subs.resumeChannel('slack:C0GAS')).toBe(0);
    expect(await subs.get(b)).toMatchObject({ paused_at: null, paused_reason: null });
    expect(await subs.idsInForce()).toEqual([a, b, other]);
    expect(await subs.counts()).toEqual({ total: 3, paused: 0 });
  });

  it('moves the revision with every subscription made, changed or removed', async () => {
    const subs = subscriptions(await open());
    const start = await subs.revision();
    expect(start).toBe(0);
    const a = await subs.add(sub());
    await subs.add(sub());
    expect(await subs.revision()).toBe(2);
    expect(await subs.pauseChannel('slack:C0GAS', 'gone', NOW)).toBe(2);
    expect(await subs.revision()).toBe(4);
    // Nothing changed, nothing moves.
    await subs.pauseChannel('slack:C0GAS', 'gone', NOW);
    await subs.remove(9999);
    expect(await subs.revision()).toBe(4);
    await subs.remove(a);
    expect(await subs.revision()).toBe(5);
  });

  it('takes a removed subscription’s reminders and capacity state with it', async () => {
    const o = await open();
    const subs = subscriptions(o);
    const kept = await subs.add(sub());
    const removed = await subs.add(sub());
    for (const rule of [`sub-${kept}`, `sub-${removed}`, 'deadlines']) {
      await insertRow(o, 'reminders', {
        rule,
        notice_id: 7,
        offset_ms: 7_200_000,
        field: 'response_at',
        deadline_at: '2026-12-01T12:00:00Z',
        due_at: '2026-12-01T10:00:00Z',
        status: 'scheduled',
        updated_at: NOW,
      });
      await insertRow(o, 'capacity_state', {
        rule,
        pipeline_slug: 'transco',
        location: 'STATION 85',
        state: 'ok',
        since: NOW,
        last_cycle: NOW,
      });
    }
    await subs.remove(removed);
    const left = ['deadlines', `sub-${kept}`].sort();
    expect((await sql(o, 'SELECT rule FROM reminders ORDER BY rule')).map((r) => r.rule)).toEqual(
      left,
    );
    expect(
      (await sql(o, 'SELECT rule FROM capacity_state ORDER BY rule')).map((r) => r.rule),
    ).toEqual(left);
  });

  it('refuses a stored rule that is not a JSON object, naming the subscription', async () => {
    const o = await open();
    const subs = subscriptions(o);
    const id = await subs.add(sub());
    await sql(o, 'UPDATE subscriptions SET rule_json = ? WHERE id = ?', ['[1, 2]', id]);
    await expect(async () => subs.get(id)).rejects.toThrow(`the rule of subscription ${id}`);
    await expect(async () => subs.all()).rejects.toThrow(`the rule of subscription ${id}`);
  });
});
