import { describe, expect, it } from 'vitest';
import type { UtcIso } from '../../src/lib/time.js';
import type { SilenceMatchers } from '../../src/store/silences.js';
import { listMatchers } from '../support/silence-matchers.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-silences-on-');
const NOW = '2026-11-28T12:00:00Z' as UtcIso;

describe('the silences on some targets', () => {
  it('are those in force that name one of them, or that the person made, as a filter of every one gives', () => {
    const { store } = temp;
    const add = (matchers: SilenceMatchers, by: string, from: string, to: string | null) =>
      store.silences.add({
        matchers,
        starts_at: from as UtcIso,
        ends_at: to as UtcIso | null,
        created_by: by,
        comment: null,
        created_at: from as UtcIso,
      });
    const targets = ['slack:C0A', 'slack:C0B', 'slack:C0C', 'discord:123', 'console'];
    const people = ['slack:U0A', 'slack:U0B', 'cli:ops'];
    for (let i = 0; i < 60; i++) {
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
      const id = add(matchers, people[i % 3]!, from, to);
      if (i % 11 === 0) store.silences.lift(id, 'slack:U0A', NOW);
    }
    const all = store.silences.active(NOW);
    for (const on of [[], ['slack:C0A'], ['slack:C0B', 'discord:123'], ['slack:C0Z']])
      for (const by of [undefined, ...people]) {
        const expected = all.filter(
          (s) =>
            s.matchers.some((m) => m.key === 'target' && m.op === '=' && on.includes(m.value)) ||
            (by !== undefined && s.created_by === by),
        );
        expect(store.silences.activeOn(NOW, on, by), `${on} ${by}`).toEqual(expected);
      }
    expect(store.silences.activeOn(NOW, ['slack:C0A']).length).toBeGreaterThan(0);
  });
});
