/**
 * Silences and what they held back behave the same on SQLite and on PostgreSQL: which
 * are in force, ended, or on a channel; lifting and moving an end; the revision; each
 * alert held once; damaged JSON refused with the row named.
 */
import { describe, expect, it } from 'vitest';
import type { Target } from '../../../src/domain/targets.js';
import type { UtcIso } from '../../../src/lib/time.js';
import { on } from '../../../src/store/postgres/queryable.js';
import { PgSilenceStore } from '../../../src/store/postgres/silences.js';
import type { NewSilence, SilenceMatchers } from '../../../src/store/silences.js';
import { StoredDataError } from '../../../src/store/stored-json.js';
import { type Opened, STORES, sql } from '../../support/both-stores.js';
import { listMatchers } from '../../support/silence-matchers.js';

const NOW = '2026-11-28T12:00:00Z' as UtcIso;
const GAS: Target = { kind: 'slack', channel: '#gas' };

function silences(o: Opened) {
  return o.kind === 'sqlite' ? o.store.silences : new PgSilenceStore(on(o.pool));
}

function silence(over: Partial<NewSilence> = {}): NewSilence {
  return {
    matchers: listMatchers({ pipelines: ['transco'] }),
    starts_at: '2026-11-28T10:00:00Z',
    ends_at: '2026-11-28T14:00:00Z',
    created_by: 'slack:U0ALICE',
    comment: null,
    created_at: '2026-11-28T10:00:00Z',
    ...over,
  };
}

describe.each(STORES)('%s (postgres and sqlite alike)', (_, open) => {
  it('stores a silence and gives it back', async () => {
    const s = silences(await open());
    const matchers: SilenceMatchers = [
      { key: 'type', op: '!~', value: 'planned maint.*' },
      { key: 'target', op: '=', value: 'slack:C0GAS' },
    ];
    const id = await s.add(silence({ matchers, comment: 'compressor work', ends_at: null }));
    expect(await s.get(id)).toEqual({
      id,
      matchers,
      starts_at: '2026-11-28T10:00:00Z',
      ends_at: null,
      created_by: 'slack:U0ALICE',
      comment: 'compressor work',
      created_at: '2026-11-28T10:00:00Z',
      lifted_at: null,
      lifted_by: null,
      summarized_at: null,
    });
    expect(await s.get(id + 1)).toBeUndefined();
    expect(await s.add(silence())).toBe(id + 1);
  });

  it('tells those in force, those not ended, and those ended to sum up, at their edges', async () => {
    const s = silences(await open());
    const startsNow = await s.add(silence({ starts_at: NOW }));
    const endsNow = await s.add(silence({ ends_at: NOW }));
    const ahead = await s.add(silence({ starts_at: '2026-11-28T13:00:00Z' }));
    const endless = await s.add(silence({ ends_at: null }));
    const lifted = await s.add(silence());
    expect(await s.lift(lifted, 'slack:U0BOB', '2026-11-28T11:00:00Z')).toBe(true);
    const ids = (rows: Array<{ id: number }>) => rows.map((r) => r.id);
    expect(ids(await s.active(NOW))).toEqual([startsNow, endless]);
    expect(ids(await s.notEnded(NOW))).toEqual([startsNow, ahead, endless]);
    expect(ids(await s.endedUnsummarized(NOW))).toEqual([endsNow, lifted]);
    await s.markSummarized(endsNow, NOW);
    expect(ids(await s.endedUnsummarized(NOW))).toEqual([lifted]);
    expect(await s.get(endsNow)).toMatchObject({ summarized_at: NOW });
    expect(ids(await s.endedUnsummarized('2026-11-28T14:00:00Z'))).toEqual([
      startsNow,
      ahead,
      lifted,
    ]);
  });

  it('finds those on some targets, or made by someone, as a filter of every one gives', async () => {
    const s = silences(await open());
    const targets = ['slack:C0A', 'slack:C0B', 'slack:C0C', 'discord:123', 'console'];
    const people = ['slack:U0A', 'slack:U0B', 'cli:ops'];
    for (let i = 0; i < 40; i++) {
      const matchers: SilenceMatchers = listMatchers(
        i % 5 === 0
          ? { pipelines: ['transco'] }
          : { targets: [targets[i % 5]!, ...(i % 3 === 0 ? [targets[(i + 2) % 5]!] : [])] },
      );
      // A regex or a != on a target names no channel: it is not found by its targets.
      if (i % 13 === 1) matchers.push({ key: 'target', op: '=~', value: 'slack:C0A' });
      if (i % 13 === 2) matchers.push({ key: 'target', op: '!=', value: 'slack:C0A' });
      const from = i % 7 === 0 ? '2026-11-28T13:00:00Z' : '2026-11-27T00:00:00Z';
      const to = i % 4 === 0 ? '2026-11-28T11:00:00Z' : i % 6 === 0 ? null : '2026-11-30T00:00:00Z';
      const id = await s.add(
        silence({ matchers, created_by: people[i % 3]!, starts_at: from, ends_at: to }),
      );
      if (i % 11 === 0) await s.lift(id, 'slack:U0A', NOW);
    }
    const all = await s.active(NOW);
    for (const on of [[], ['slack:C0A'], ['slack:C0B', 'discord:123'], ['slack:C0Z']])
      for (const by of [undefined, ...people]) {
        const expected = all.filter(
          (x) =>
            x.matchers.some((m) => m.key === 'target' && m.op === '=' && on.includes(m.value)) ||
            (by !== undefined && x.created_by === by),
        );
        expect(await s.activeOn(NOW, on, by), `${on} ${by}`).toEqual(expected);
      }
    expect((await s.activeOn(NOW, ['slack:C0A'])).length).toBeGreaterThan(0);
  });

  it('lifts a silence in force once, and moves the end of one not ended', async () => {
    const s = silences(await open());
    const id = await s.add(silence());
    const ended = await s.add(silence({ ends_at: '2026-11-28T11:00:00Z' }));
    const endless = await s.add(silence({ ends_at: null }));
    expect(await s.setEnd(id, '2026-11-28T18:00:00Z', NOW)).toBe(true);
    expect(await s.get(id)).toMatchObject({ ends_at: '2026-11-28T18:00:00Z' });
    expect(await s.setEnd(ended, '2026-11-28T18:00:00Z', NOW)).toBe(false);
    expect(await s.setEnd(endless, '2026-11-28T18:00:00Z', NOW)).toBe(false);
    expect(await s.setEnd(9999, '2026-11-28T18:00:00Z', NOW)).toBe(false);
    expect(await s.lift(ended, 'slack:U0BOB', NOW)).toBe(false);
    expect(await s.lift(id, 'slack:U0BOB', NOW)).toBe(true);
    expect(await s.lift(id, 'slack:U0CAROL', NOW)).toBe(false);
    expect(await s.get(id)).toMatchObject({ lifted_at: NOW, lifted_by: 'slack:U0BOB' });
    expect(await s.setEnd(id, '2026-11-28T19:00:00Z', NOW)).toBe(false);
    expect(await s.lift(endless, 'slack:U0BOB', NOW)).toBe(true);
  });

  it('finds no silence by an id no row can have, as typed in chat', async () => {
    const s = silences(await open());
    await s.add(silence());
    for (const id of [1e20, 2 ** 63, 1.5, Number.NaN]) {
      expect(await s.get(id), String(id)).toBeUndefined();
      expect(await s.lift(id, 'slack:U0BOB', NOW), String(id)).toBe(false);
      expect(await s.setEnd(id, '2026-11-28T18:00:00Z', NOW), String(id)).toBe(false);
      expect(await s.heldBy(id), String(id)).toEqual([]);
    }
    expect(await s.active(NOW)).toHaveLength(1);
  });

  it('lists every silence newest first, or those not ended before an instant', async () => {
    const s = silences(await open());
    const old = await s.add(silence({ ends_at: '2026-11-20T00:00:00Z' }));
    const liftedEarly = await s.add(silence({ ends_at: '2026-12-01T00:00:00Z' }));
    await s.lift(liftedEarly, 'slack:U0BOB', '2026-11-21T00:00:00Z');
    const endless = await s.add(silence({ ends_at: null }));
    const recent = await s.add(silence({ ends_at: '2026-11-25T00:00:00Z' }));
    expect((await s.list()).map((x) => x.id)).toEqual([recent, endless, liftedEarly, old]);
    expect((await s.list('2026-11-21T00:00:00Z')).map((x) => x.id)).toEqual([
      recent,
      endless,
      liftedEarly,
    ]);
    expect((await s.list('2026-11-22T00:00:00Z')).map((x) => x.id)).toEqual([recent, endless]);
  });

  it('counts the silences in force or to come, by person and by workspace', async () => {
    const s = silences(await open());
    const mine = (over: Partial<NewSilence>) =>
      s.add(silence({ workspace: 'slack:T0GAS', ...over }));
    await mine({});
    await mine({ starts_at: '2026-11-29T00:00:00Z', ends_at: '2026-11-30T00:00:00Z' });
    await mine({ ends_at: null });
    await mine({ ends_at: '2026-11-28T11:00:00Z' }); // ended
    await s.lift(await mine({}), 'slack:U0ALICE', NOW); // lifted
    await mine({ created_by: 'slack:U0BOB' });
    await s.add(silence({ workspace: null }));
    expect(await s.countInForce({ createdBy: 'slack:U0ALICE' }, NOW)).toBe(4);
    expect(await s.countInForce({ workspace: 'slack:T0GAS' }, NOW)).toBe(4);
    expect(await s.countInForce({ createdBy: 'slack:U0NOBODY' }, NOW)).toBe(0);
  });

  it('moves the revision with every silence made or changed', async () => {
    const s = silences(await open());
    expect(await s.revision()).toBe(0);
    const id = await s.add(silence());
    await s.add(silence());
    expect(await s.revision()).toBe(2);
    await s.lift(id, 'slack:U0BOB', NOW);
    expect(await s.revision()).toBe(3);
    await s.lift(id, 'slack:U0BOB', NOW); // nothing changed
    expect(await s.revision()).toBe(3);
    await s.markSummarized(id, NOW);
    expect(await s.revision()).toBe(4);
  });

  it('holds each alert key once, and gives back what a silence held', async () => {
    const s = silences(await open());
    const a = await s.add(silence());
    const b = await s.add(silence());
    expect(await s.anyHeld()).toBe(false);
    const hold = (key: string, silence_id: number, alert: unknown, at = NOW) =>
      s.hold(key, { silence_id, rule: 'ofo', target: GAS, targetKey: 'slack:#gas', alert, at });
    expect(await hold('ofo|notice:1:v1|slack:#gas', a, { title: 'one' })).toBe(true);
    expect(await hold('ofo|notice:1:v1|slack:#gas', b, { title: 'again' })).toBe(false);
    expect(
      await hold('ofo|notice:2:v1|slack:#gas', a, { title: 'two' }, '2026-11-28T12:05:00Z'),
    ).toBe(true);
    expect(await hold('ofo|notice:3:v1|slack:#gas', b, { title: 'three' })).toBe(true);
    expect(await s.anyHeld()).toBe(true);
    expect(await s.isHeld('ofo|notice:1:v1|slack:#gas')).toBe(true);
    expect(await s.isHeld('ofo|notice:9:v1|slack:#gas')).toBe(false);
    expect(await s.heldBy(a)).toEqual([
      {
        silence_id: a,
        rule: 'ofo',
        target: GAS,
        alert: { title: 'two' },
        at: '2026-11-28T12:05:00Z',
      },
      { silence_id: a, rule: 'ofo', target: GAS, alert: { title: 'one' }, at: NOW },
    ]);
    expect(await s.heldBy(9999)).toEqual([]);
    expect(await s.heldCounts()).toEqual(
      new Map([
        [a, 2],
        [b, 1],
      ]),
    );
  });

  it('gives back an unreadable held alert as undefined, and refuses an unreadable target', async () => {
    const o = await open();
    const s = silences(o);
    const id = await s.add(silence());
    await s.hold('k1', {
      silence_id: id,
      rule: 'ofo',
      target: GAS,
      targetKey: 'slack:#gas',
      alert: { a: 1 },
      at: NOW,
    });
    await sql(o, "UPDATE held SET alert_json = '{\"a\":' WHERE key = 'k1'");
    expect((await s.heldBy(id))[0]?.alert).toBeUndefined();
    // The target's key is read when its JSON cannot be; neither can be here.
    await sql(o, "UPDATE held SET target_json = '{', target = 'nowhere' WHERE key = 'k1'");
    await expect(async () => s.heldBy(id)).rejects.toThrow(StoredDataError);
    await expect(async () => s.heldBy(id)).rejects.toThrow(
      `the database holds an alert held back by silence ${id} whose its target`,
    );
  });

  it('refuses matchers of another shape, naming the silence', async () => {
    const o = await open();
    const s = silences(o);
    const id = await s.add(silence({ created_by: 'slack:U0ALICE' }));
    await sql(o, 'UPDATE silences SET matchers_json = ? WHERE id = ?', [
      '[{"key":"pipelines","op":"=","value":"transco"}]',
      id,
    ]);
    const named = `the database holds the matchers of silence ${id}, which is not what pipewatch stores there: [0].key: `;
    await expect(async () => s.active(NOW)).rejects.toThrow(named);
    await expect(async () => s.activeOn(NOW, ['slack:C0A'], 'slack:U0ALICE')).rejects.toThrow(
      named,
    );
    // Matchers that are JSON but not a list fail the query that looks inside them.
    await sql(o, 'UPDATE silences SET matchers_json = ? WHERE id = ?', [
      '{"key":"target","op":"=","value":"slack:C0A"}',
      id,
    ]);
    await expect(async () => s.activeOn(NOW, ['slack:C0A'])).rejects.toThrow();
    await expect(async () => s.active(NOW)).rejects.toThrow(StoredDataError);
  });
});
