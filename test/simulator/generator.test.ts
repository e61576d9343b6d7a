import { describe, expect, it } from 'vitest';
import { NoticeGenerator } from '../../src/simulator/notice-generator.js';
import { NoticeStore } from '../../src/simulator/notice-store.js';

const generate = (seed: number, useCache: boolean) => {
  const store = new NoticeStore(1);
  const opts = {
    seed,
    startAt: new Date('2026-03-09T12:00:00Z'),
    historyDays: 20,
    noticesPerHour: 6,
    refreshEveryMs: 600_000,
  };
  const generator = new NoticeGenerator(store, opts);
  generator.generateHistory(useCache);
  generator.advanceTo(Date.parse('2026-03-10T12:00:00Z'));
  return JSON.stringify(store.list());
};

describe('notice generator', () => {
  it('generates the same history and live events from scratch and from the cache', () => {
    const fresh = generate(42, false);
    expect(generate(42, false)).toBe(fresh);
    expect(generate(42, true)).toBe(fresh);
    expect(generate(42, true)).toBe(fresh);
    expect(generate(43, false)).not.toBe(fresh);
  });
});
