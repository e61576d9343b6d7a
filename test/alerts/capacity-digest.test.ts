/**
 * Capacity decisions group what they send: the locations of one rule that breach (or
 * recover) in one cycle make one alert per target, while each location keeps its own
 * state and audit row. Against a real SQLite store.
 */
import { describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import type { AlertPayload } from '../../src/alerts/payload.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { CapacityRule, Rule } from '../../src/rules/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { CapacityLocation } from '../../src/upstream/schemas.js';
import { transcoCycle } from '../fakes/capacity-event.js';
import { ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const at = { file: 'rules/test.yaml', line: 1, col: 1 };
const EMAIL = { kind: 'email' as const, to: ['scheduling@example.com'] };
const SLACK = { kind: 'slack' as const, channel: '#gas' };

const temp = useTempStore('pipewatch-capacity-digest-');

function setup(rules: Rule[]) {
  const clock = new ManualClock('2026-11-22T23:10:00Z');
  const engine = new AlertEngine(
    { store: asyncStoreOf(temp.store), clock, logger: silentLogger, maxAlertAgeMs: 86_400_000 },
    rules,
  );
  return { engine, clock };
}

const transco: CapacityRule = {
  kind: 'capacity',
  name: 'transco-low-oac',
  at,
  pipelines: ['transco'],
  unit: 'absolute',
  below: 50_000,
  clearAbove: 60_000,
  notify: [EMAIL, SLACK],
};

/** 20 locations, `STATION 1` … `STATION 20`, with OAC from `oac(i)`. */
function locations(oac: (i: number) => number): CapacityLocation[] {
  return Array.from({ length: 20 }, (_, k) => {
    const i = k + 1;
    return {
      id: i,
      location: `STATION ${i}`,
      identifier: String(1_001_000 + i),
      flow: 'D',
      qti: 'DPQ',
      zone: 'Z4',
      dc: 200_000,
      opc: 200_000,
      tsq: 200_000 - oac(i),
      oac: oac(i),
      it: 'N',
      all: 'Y',
      reason: '',
      service_created_at: null,
      service_updated_at: null,
    };
  });
}

async function decide(
  engine: AlertEngine,
  oac: (i: number) => number,
  cycle = 'timely',
  gasDay = '2026-11-23',
  version = 1,
) {
  const e = transcoCycle({
    cycle,
    gasDay,
    locations: locations(oac),
    version,
    seenAt: '2026-11-22T23:10:00Z',
  });
  await asyncStoreOf(temp.store).transaction(async () => engine.hooks().capacity?.(e));
}

interface Row {
  key: string;
  rule: string;
  target: string;
  payload: AlertPayload;
}

const outbox = (): Row[] =>
  (
    temp.store.db
      .prepare(
        "SELECT rule || '|' || subject || '|' || target AS key, rule, target, payload FROM outbox ORDER BY id",
      )
      .all() as Array<Omit<Row, 'payload'> & { payload: string }>
  ).map((r) => ({ ...r, payload: JSON.parse(r.payload) as AlertPayload }));

const audit = () =>
  temp.store.db
    .prepare("SELECT subject, decision FROM audit WHERE event = 'capacity' ORDER BY id")
    .all() as Array<{
    subject: string;
    decision: string;
  }>;

const names = (r: Row) => r.payload.capacity!.locations.map((l) => l.location);

/** 17 of the 20 locations below 50,000 (STATION 1 lowest), the other three at 100,000. */
const seventeenLow = (i: number) => (i <= 17 ? 1_000 * i : 100_000);

describe('capacity alerts of one cycle', () => {
  it('17 locations breaching make one row per target, each with all 17', async () => {
    const { engine } = setup([transco]);
    await decide(engine, seventeenLow);
    const rows = outbox();
    expect(rows.map((r) => r.target)).toEqual(['email:scheduling@example.com', 'slack:#gas']);
    for (const r of rows) {
      expect(r.payload).toMatchObject({
        kind: 'capacity',
        state: 'firing',
        rule: 'transco-low-oac',
        pipeline: { slug: 'transco', name: 'Transco' },
        capacity: { cycle: 'timely', gas_day: '2026-11-23' },
      });
      expect(names(r)).toEqual(Array.from({ length: 17 }, (_, k) => `STATION ${k + 1}`));
      expect(r.payload.capacity!.locations[0]).toMatchObject({
        identifier: '1001001',
        oac: 1_000,
        threshold: 50_000,
        clear_above: 60_000,
        unit: 'absolute',
      });
      expect(r.key).toMatch(
        /^transco-low-oac\|capacity:transco:2026-11-23:timely:v1:firing:[0-9a-f]{12}\|/,
      );
    }
    expect(rows[0]!.key.split('|')[1]).toBe(rows[1]!.key.split('|')[1]);
  });

  it('keeps one audit row per location', async () => {
    const { engine } = setup([transco]);
    await decide(engine, seventeenLow);
    const rows = audit();
    expect(rows).toHaveLength(17);
    expect(new Set(rows.map((r) => r.subject)).size).toBe(17);
    expect(rows[0]).toEqual({ subject: 'capacity:transco:1001001', decision: 'firing' });
  });

  it('a second rule naming the same target makes its own row', async () => {
    const station = {
      ...transco,
      name: 'station-watch',
      locations: ['station 3', 'station 19'],
      below: 5_000,
      clearAbove: 6_000,
      notify: [EMAIL],
    };
    const { engine } = setup([transco, station]);
    await decide(engine, seventeenLow);
    const rows = outbox().filter((r) => r.target === 'email:scheduling@example.com');
    expect(rows.map((r) => r.rule)).toEqual(['transco-low-oac', 'station-watch']);
    expect(names(rows[1]!)).toEqual(['STATION 3']);
    expect(rows[1]!.payload.capacity!.locations[0]!.threshold).toBe(5_000);
  });

  it('the recovery of several locations comes as one row, and re-deciding adds nothing', async () => {
    const { engine } = setup([transco]);
    await decide(engine, seventeenLow);
    await decide(engine, seventeenLow);
    expect(outbox()).toHaveLength(2);
    // Evening: STATION 1-3 recover, 4-17 stay low; nothing new breaches.
    const evening = (i: number) => (i <= 3 ? 70_000 : seventeenLow(i));
    await decide(engine, evening, 'evening');
    await decide(engine, evening, 'evening');
    await decide(engine, evening, 'evening', '2026-11-23', 2);
    const resolved = outbox().filter((r) => r.payload.state === 'resolved');
    expect(resolved).toHaveLength(2);
    expect(names(resolved[0]!)).toEqual(['STATION 1', 'STATION 2', 'STATION 3']);
    expect(resolved[0]!.key).toMatch(/\|capacity:transco:2026-11-23:evening:v1:resolved:/);
    expect(outbox()).toHaveLength(4);
    expect(audit().filter((r) => r.decision === 'resolved')).toHaveLength(3);
  });

  it('ignores a cycle older than the last one judged, location by location', async () => {
    const { engine } = setup([transco]);
    await decide(engine, seventeenLow, 'id1');
    await decide(engine, () => 100_000, 'timely');
    expect(outbox().map((r) => r.payload.state)).toEqual(['firing', 'firing']);
  });

  it('puts repeats of still-low locations in the firing row, marked, after new breaches', async () => {
    const { engine, clock } = setup([{ ...transco, repeatEveryMs: 3_600_000, notify: [EMAIL] }]);
    await decide(engine, (i) => (i <= 2 ? 10_000 * i : 100_000));
    clock.advance(3_600_000);
    // STATION 1 and 2 still low (repeats), STATION 5 breaches for the first time.
    await decide(engine, (i) => (i <= 2 ? 10_000 * i : i === 5 ? 40_000 : 100_000), 'evening');
    const rows = outbox();
    expect(rows).toHaveLength(2);
    expect(names(rows[1]!)).toEqual(['STATION 5', 'STATION 1', 'STATION 2']);
    expect(rows[1]!.payload.capacity!.locations.map((l) => l.repeat ?? false)).toEqual([
      false,
      true,
      true,
    ]);
    expect(rows[1]!.key).not.toBe(rows[0]!.key);
    // An hour on, the same cycle judged again: each location is due its repeat, a new alert.
    clock.advance(3_600_000);
    await decide(engine, (i) => (i <= 2 ? 10_000 * i : i === 5 ? 40_000 : 100_000), 'evening');
    const repeats = outbox()[2]!;
    expect(names(repeats)).toEqual(['STATION 1', 'STATION 2', 'STATION 5']);
    expect(repeats.payload.capacity!.locations.every((l) => l.repeat === true)).toBe(true);
  });
});
