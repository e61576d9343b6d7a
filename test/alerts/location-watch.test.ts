/**
 * The engine's watch over the location entries of the capacity rules in force: an entry
 * is judged once every pipeline of its rule has shown capacity, reported once (a warning
 * and one operations alert) when nothing matches it, and never when something does.
 */
import { describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import type { CapacityEvent } from '../../src/ingest/events.js';
import { parseRuleFile } from '../../src/rules/loader.js';
import type { Rule } from '../../src/rules/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import { storePipelines } from '../fakes/pipelines.js';
import { capturedLogger } from '../support/captured-logger.js';
import { ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const NOW = '2026-11-20T15:00:00Z';
const OPS = { kind: 'slack' as const, channel: '#pipewatch-ops' };
const temp = useTempStore('pipewatch-location-watch-');

function rules(text: string): Rule[] {
  const parsed = parseRuleFile(text, 'rules/oac.yaml');
  expect(parsed.problems).toEqual([]);
  return parsed.rules;
}

let cycleId = 0;
/** A cycle of `slug` holding these locations (name, identifier), stored as the feed stores it. */
function cycle(store: Store, slug: string, locations: Array<[string, string]>): CapacityEvent {
  const info = {
    id: ++cycleId,
    pipeline_id: 1,
    pipeline_name: slug,
    pipeline_slug: slug,
    pipeline_url: '',
    identifier: 'x',
    cycle: 'timely',
    gas_day: '2026-11-21',
    service_created_at: null,
    service_updated_at: null,
  };
  const rows = locations.map(([location, identifier], i) => ({
    id: cycleId * 100 + i,
    location,
    identifier,
    flow: 'D',
    qti: 'DPQ',
    zone: 'Z1',
    dc: 100_000,
    opc: 100_000,
    tsq: 20_000,
    oac: 80_000,
    it: 'Y',
    all: 'N',
    reason: '',
    service_created_at: null,
    service_updated_at: null,
  }));
  store.capacity.upsertCycle(info, rows, NOW);
  return { kind: 'capacity', change: 'new', cycle: info, locations: rows, version: 1, seenAt: NOW };
}

function engine(store: Store, ruleSet: Rule[]) {
  const log = capturedLogger();
  const e = new AlertEngine(
    {
      store: asyncStoreOf(store),
      clock: new ManualClock(NOW),
      logger: log.logger,
      maxAlertAgeMs: 86_400_000,
      opsTarget: OPS,
    },
    ruleSet,
  );
  const arrive = (event: CapacityEvent) =>
    asyncStoreOf(store).transaction(async () => e.hooks().capacity?.(event));
  return { engine: e, lines: log.lines, arrive };
}

const TWO_PIPELINES = `rules:
  - name: hub-oac
    capacity:
      pipelines: [transco, tgp]
      locations: ["LEIDY HUB", "STATION 85"]
      oac_below: 50000
    notify: [{ console: true }]
`;

describe('location entries in the daemon', () => {
  it('are judged once every pipeline of the rule has shown capacity, and reported once', async () => {
    const { store } = temp;
    storePipelines(store, ['transco', 'tgp'], NOW);
    const { engine: e, lines, arrive } = engine(store, rules(TWO_PIPELINES));
    expect(await e.checkLocations()).toEqual([]);
    expect(lines.join('')).toMatch(
      /location 'LEIDY HUB' not checked yet: no capacity of transco, tgp/,
    );

    await arrive(cycle(store, 'tgp', [['LEIDY HUB NORTH', '40001']]));
    await arrive(cycle(store, 'transco', [['STATION 58', '1000058']]));
    // Leidy Hub matched Tennessee's; Station 85 matched nothing of either.
    const warnings = lines.filter((l) => /matches no location/.test(l));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      "rules/oac.yaml:5:32: rule 'hub-oac': location 'STATION 85' matches no location of transco or tgp — did you mean 'STATION 58'?; the rule never fires there",
    );
    const ops = store.outbox.due('2030-01-01T00:00:00Z');
    expect(ops.map((r) => r.key)).toEqual([
      'pipewatch-operations|unknown-location:hub-oac:station 85|slack:#pipewatch-ops',
    ]);
    expect(ops[0]!.payload.operations).toEqual({
      event: 'unknown-location',
      summary:
        "Rule 'hub-oac' watches location 'STATION 85', which no location of transco or tgp matches, so it never fires there: did you mean 'STATION 58'? (rules/oac.yaml:5:32)",
      rule: 'hub-oac',
      location: 'STATION 85',
      pipelines: ['transco', 'tgp'],
      suggestion: 'STATION 58',
      at: 'rules/oac.yaml:5:32',
      seen_at: NOW,
    });

    // Another cycle, and a restart: the warning again at start, no second alert.
    await arrive(
      cycle(store, 'transco', [
        ['STATION 58', '1000058'],
        ['STATION 60', '1000060'],
      ]),
    );
    const restarted = engine(store, rules(TWO_PIPELINES));
    expect((await restarted.engine.checkLocations()).map((u) => u.location)).toEqual([
      'STATION 85',
    ]);
    expect(restarted.lines.join('')).toMatch(/location 'STATION 85' matches no location/);
    expect(store.outbox.due('2030-01-01T00:00:00Z')).toHaveLength(1);
  });

  it('say nothing of an entry that matches, by name or identifier, as the engine matches', async () => {
    const { store } = temp;
    storePipelines(store, ['transco'], NOW);
    cycle(store, 'transco', [['STATION 85 ZONE 4', '1000085']]);
    const { engine: e, lines } = engine(
      store,
      rules(`rules:
  - name: station-85
    capacity: { pipelines: [transco], locations: ["station 85", "1000085", "Zone 4"], oac_below: 1 }
    notify: [{ console: true }]
`),
    );
    expect(await e.checkLocations()).toEqual([]);
    expect(lines.join('')).not.toMatch(/location '/);
    expect(store.outbox.counts().pending).toBe(0);
  });
});
