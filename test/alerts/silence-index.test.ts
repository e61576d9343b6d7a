/**
 * The silences by what they match: for any alert, the index finds the very silence a
 * check of every silence in force, oldest first, finds, whatever the silences' matchers
 * (none, empty lists, values repeated, more values than it sorts by, a matcher it cannot
 * sort by); and the engine, which keeps it from one decision to the next, reads the
 * silences again as soon as any connection changed one.
 */
import { describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import { SilenceIndex } from '../../src/alerts/silence-index.js';
import { type AlertLabels, alertLabels } from '../../src/alerts/silence-matchers.js';
import { silenceMatches } from '../../src/alerts/silences.js';
import { type Target, targetKey } from '../../src/domain/targets.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { UtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { Store } from '../../src/store/index.js';
import type { SilenceMatchers, SilenceRow } from '../../src/store/silences.js';
import { makeNotice, noticeEvent } from '../fakes/notice.js';
import { ManualClock } from '../support/clock.js';
import { seededRandom } from '../support/seeded-random.js';
import { listMatchers } from '../support/silence-matchers.js';
import { useTempStore } from '../support/temp-store.js';

const PIPELINES = ['transco', 'tgp', 'anr', 'ngpl'];
const RULES = ['sub-1', 'sub-2', 'gas', 'ops'];
const TARGETS: Target[] = [
  { kind: 'slack', channel: 'C0GAS' },
  { kind: 'slack', channel: '#gas' },
  { kind: 'discord', channel: '135' },
  { kind: 'slack_dm', user: 'U0ALICE' },
  { kind: 'webhook', url: 'https://hooks.example.com/a' },
];
const KEYS = TARGETS.map(targetKey);
const NOW = '2026-11-20T15:00:00Z' as UtcIso;

/** A list of 0 to 3 of `values`, sometimes one repeated, sometimes absent. */
function listOf(random: () => number, values: readonly string[]): string[] | undefined {
  const r = random();
  if (r < 0.2) return undefined;
  if (r < 0.4) return [];
  const n = 1 + Math.floor(random() * 3);
  const list = Array.from({ length: n }, () => values[Math.floor(random() * values.length)]!);
  if (random() < 0.1) list.push(list[0]!);
  return list;
}

/** Silences of every shape, some not in force at NOW, oldest first. */
function silences(random: () => number, count: number): SilenceRow[] {
  return Array.from({ length: count }, (_, i) => {
    let targets = listOf(random, KEYS);
    let pipelines = listOf(random, PIPELINES);
    const rules = listOf(random, RULES);
    // More values than the index sorts a silence by: it is sorted by fewer matchers.
    if (random() < 0.05) {
      targets = [...KEYS, ...Array.from({ length: 70 }, (_, k) => `SLACK:C${k}`)];
      pipelines = PIPELINES.slice(0, 2);
    }
    const matchers: SilenceMatchers = listMatchers({ targets, pipelines, rules });
    // Matchers it cannot sort by: checked in full. Values in another letter case.
    const extra = random();
    if (extra < 0.1) matchers.push({ key: 'pipeline', op: '!=', value: 'TGP' });
    else if (extra < 0.2) matchers.push({ key: 'type', op: '=~', value: 'constr.*' });
    else if (extra < 0.3) matchers.push({ key: 'type', op: '!~', value: 'maint.*|' });
    else if (extra < 0.35) matchers.push({ key: 'rule', op: '=~', value: 'sub-.' });
    else if (extra < 0.4) for (const m of matchers) m.value = m.value.toUpperCase();
    const when = random();
    return {
      id: i + 1,
      matchers,
      starts_at: when < 0.1 ? '2026-11-20T16:00:00Z' : '2026-11-20T14:00:00Z',
      ends_at: when > 0.9 ? '2026-11-20T15:00:00Z' : when > 0.5 ? null : '2026-11-21T00:00:00Z',
      created_by: 'U0ALICE',
      comment: null,
      created_at: '2026-11-20T14:00:00Z',
      lifted_at: when > 0.85 && when <= 0.9 ? '2026-11-20T14:30:00Z' : null,
      lifted_by: null,
      summarized_at: null,
    } as SilenceRow;
  });
}

/** What a check of every silence in force, in order, finds. */
function linear(all: readonly SilenceRow[], labels: AlertLabels) {
  return all.find(
    (s) =>
      s.lifted_at === null &&
      s.starts_at <= NOW &&
      (s.ends_at === null || s.ends_at > NOW) &&
      silenceMatches(s, labels),
  );
}

/** An alert's values, with a notice of `type` (none: a capacity alert). */
const labelsOf = (rule: string, pipeline: string, target: Target, type?: string) =>
  alertLabels(
    rule,
    pipeline,
    target,
    type === undefined ? undefined : { type, category: 'Critical', status: 'Initiate' },
  );

describe('the silence index', () => {
  it('finds, for every alert, the oldest silence in force that holds it, as a full check does', () => {
    let held = 0;
    let alerts = 0;
    for (const seed of [1, 2, 3, 4, 5]) {
      const random = seededRandom(seed);
      const all = silences(random, 6 + seed * 6);
      const index = new SilenceIndex(all);
      for (const rule of [...RULES, 'other'])
        for (const pipeline of [...PIPELINES, 'other'])
          for (const target of TARGETS)
            for (const type of [undefined, 'Capacity Constraint', 'Planned Maintenance']) {
              const labels = labelsOf(rule, pipeline, target, type);
              const expected = linear(all, labels);
              if (expected) held++;
              alerts++;
              expect(index.first(NOW, labels)?.id, `${rule} ${pipeline} ${type}`).toBe(
                expected?.id,
              );
            }
    }
    // Both outcomes are met often: the comparison says something.
    expect(held).toBeGreaterThan(alerts / 5);
    expect(held).toBeLessThan((alerts * 4) / 5);
  });

  it('checks in full a silence of more values than it sorts by, and one that matches anything', () => {
    const base = silences(seededRandom(9), 1)[0]!;
    const row = (id: number, matchers: SilenceMatchers): SilenceRow => ({
      ...base,
      id,
      matchers,
      starts_at: '2026-11-20T14:00:00Z',
      ends_at: null,
      lifted_at: null,
    });
    const many = (prefix: string) => Array.from({ length: 100 }, (_, k) => `${prefix}${k}`);
    const index = new SilenceIndex([
      row(1, listMatchers({ targets: many('slack:C'), pipelines: many('p') })),
      row(2, listMatchers({ rules: ['ops'] })),
      row(3, []),
    ]);
    const c7: Target = { kind: 'slack', channel: 'C7' };
    const other: Target = { kind: 'slack', channel: 'C0OTHER' };
    expect(index.first(NOW, labelsOf('gas', 'p42', c7))?.id).toBe(1);
    expect(index.first(NOW, labelsOf('ops', 'transco', c7))?.id).toBe(2);
    expect(index.first(NOW, labelsOf('gas', 'transco', other))?.id).toBe(3);
    expect(
      new SilenceIndex([
        row(1, listMatchers({ targets: many('slack:C'), pipelines: many('p') })),
      ]).first(NOW, labelsOf('gas', 'transco', c7)),
    ).toBeUndefined();
  });
});

describe('the engine keeps the silences between decisions', () => {
  const temp = useTempStore('pipewatch-silence-index-');

  it('and reads them again as soon as another connection adds or lifts one', async () => {
    const { store, dir } = temp;
    const clock = new ManualClock(NOW);
    const engine = new AlertEngine(
      { store: asyncStoreOf(store), clock, logger: silentLogger, maxAlertAgeMs: 86_400_000 },
      [
        {
          kind: 'notices',
          name: 'gas',
          at: { file: 'rules/test.yaml', line: 1, col: 1 },
          filter: { pipelines: ['transco'] },
          on: ['new'],
          notify: [{ kind: 'slack', channel: 'C0GAS' }],
        },
      ],
    );
    const ingest = async (id: number) =>
      await asyncStoreOf(store).transaction(async () => {
        const n = makeNotice({ id });
        store.notices.upsert(n, NOW, false);
        await engine.hooks().notices?.([noticeEvent(n)]);
      });
    const decided = (id: number) =>
      store.audit
        .forNotice(id)
        .map((a) => a.decision)
        .concat(store.outbox.forSubject(`notice:${id}:`).map(() => 'alert'));
    await ingest(1);
    const other = Store.open(dir);
    try {
      const id = other.silences.add({
        matchers: listMatchers({ targets: ['slack:C0GAS'] }),
        starts_at: NOW,
        ends_at: null,
        created_by: 'cli:ops',
        comment: null,
        created_at: NOW,
      });
      await ingest(2);
      other.silences.lift(id, 'cli:ops', NOW);
      clock.set('2026-11-20T15:00:01Z');
      await ingest(3);
    } finally {
      other.close();
    }
    expect([decided(1), decided(2), decided(3)]).toEqual([['alert'], ['muted'], ['alert']]);
  });
});
