/**
 * The daemon at start says what the API does not have, so that no alert is switched off
 * by a typo in silence: a `PIPEWATCH_PIPELINES` slug the API does not track, and a
 * location entry of a rule file or a stored subscription that no capacity of its pipeline
 * has. Each is a warning naming the nearest name and an operations alert, once; the
 * daemon runs on for the rest.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { InstantClock, ManualClock } from '../support/clock.js';
import { cli } from './run-cli.js';

const START = new Date('2026-11-20T15:00:00Z');
const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
const clock = () => new InstantClock(new Date(START.getTime() + 60_000));

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 43, startAt: START, clock: new ManualClock(START) });
});
afterAll(async () => {
  await sim.close();
});

function setup(rules: string, extra: Record<string, string> = {}) {
  const rulesDir = mkdtempSync(join(tmpdir(), 'pipewatch-names-rules-'));
  writeFileSync(join(rulesDir, 'rules.yaml'), rules);
  return {
    PIPEWATCH_API_URL: sim.url,
    PIPEWATCH_API_USER: premium.username,
    PIPEWATCH_API_KEY: premium.key,
    PIPEWATCH_API_RATE: '100',
    PIPEWATCH_DATA_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-names-')),
    PIPEWATCH_RULES_DIR: rulesDir,
    PIPEWATCH_OPS_TARGET: 'console',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

const OPS = /^ALERT pipewatch-operations → console: .*$/gm;

describe('PIPEWATCH_PIPELINES', () => {
  it('a slug the API does not track is a warning with the slug meant and one operations alert; the others run on', async () => {
    const env = setup('rules: []\n', { PIPEWATCH_PIPELINES: 'transcoo,texas-eastern' });
    const run = await cli(['run', '--once'], env, { clock: clock() });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /PIPEWATCH_PIPELINES: pipeline 'transcoo' is not tracked by the API — did you mean 'transco'\?; pipewatch leaves it out and runs on for the others/,
    );
    expect(run.stdout.match(OPS)).toEqual([
      "ALERT pipewatch-operations → console: PIPEWATCH_PIPELINES names pipeline 'transcoo', which the API does not track, so pipewatch leaves it out: did you mean 'transco'? (PIPEWATCH_PIPELINES)",
    ]);

    // Known now at start: the warning again, the operations alert not again.
    const again = await cli(['run', '--once'], env, { clock: clock() });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/PIPEWATCH_PIPELINES: pipeline 'transcoo' is not tracked/);
    expect(again.stdout).not.toMatch(OPS);
  });
});

describe('location entries', () => {
  const rule = `rules:
  - name: transco-low-oac
    capacity:
      pipelines: [transco]
      locations: ["STATION 58", "PSE&G LINDEN"]
      oac_below: 50000
    notify: [{ console: true }]
`;

  it('one no capacity of its pipeline has is reported when the capacity arrives, and at each start', async () => {
    const env = setup(rule);
    const first = await cli(['run', '--once'], env, { clock: clock() });
    expect(first.code).toBe(0);
    const warning =
      /rules\.yaml:5:19: rule 'transco-low-oac': location 'STATION 58' matches no location of transco — did you mean 'STATION 85'\?; the rule never fires there/;
    expect(first.stderr).toMatch(warning);
    expect(first.stderr).not.toMatch(/PSE&G LINDEN/);
    const ops = first.stdout.match(OPS);
    expect(ops).toHaveLength(1);
    expect(ops![0]).toMatch(
      /^ALERT pipewatch-operations → console: Rule 'transco-low-oac' watches location 'STATION 58', which no location of transco matches, so it never fires there: did you mean 'STATION 85'\? \(\S*rules\.yaml:5:19\)$/,
    );

    const again = await cli(['run', '--once'], env, { clock: clock() });
    expect(again.stderr).toMatch(warning);
    expect(again.stdout).not.toMatch(OPS);
  });

  it('a stored subscription naming one is reported at start', async () => {
    const env = setup('rules: []\n', { PIPEWATCH_CAPACITY_PIPELINES: 'transco' });
    // Capacity of Transco stored first, then a subscription stored without a check, as
    // one made before pipewatch checked locations was: the next start reports it.
    expect((await cli(['run', '--once'], env, { clock: clock() })).code).toBe(0);
    const { Store } = await import('../../src/store/index.js');
    const store = Store.open(env.PIPEWATCH_DATA_DIR);
    const id = store.subscriptions.add({
      rule: {
        capacity: { pipelines: ['transco'], locations: ['1000058'], oac_below: 50000 },
        notify: [{ console: true }],
      },
      target: 'console',
      source: 'cli',
      channel: null,
      created_by: 'ops',
      created_at: '2026-11-20T15:00:00Z',
      notice_id: null,
    });
    store.close();
    const run = await cli(['run', '--once'], env, { clock: clock() });
    expect(run.stderr).toMatch(
      new RegExp(
        `subscription ${id}:1:1: rule 'sub-${id}': location '1000058' matches no location of transco — did you mean '1000085'\\?`,
      ),
    );
    expect(run.stdout.match(OPS)).toEqual([
      `ALERT pipewatch-operations → console: Rule 'sub-${id}' watches location '1000058', which no location of transco matches, so it never fires there: did you mean '1000085'? (subscription ${id}:1:1)`,
    ]);
  });
});

describe('subs add with PIPEWATCH_API_URL set', () => {
  it("checks an oac location against the API's latest capacity when none is stored", async () => {
    const env = setup('rules: []\n');
    // The database and the pipeline list, and no capacity: no rule asks for any.
    expect((await cli(['run', '--once'], env, { clock: clock() })).code).toBe(0);
    const typo = await cli(
      ['subs', 'add', 'console', 'oac', 'transco', 'Station 58', 'below:50000'],
      env,
      { clock: clock() },
    );
    expect(typo).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "pipewatch: column 13 '\"Station 58\"': unknown location 'Station 58' on transco — did you mean 'STATION 85'?\n",
    });
    const right = await cli(
      ['subs', 'add', 'console', 'oac', 'transco', 'Station 85', 'below:50000'],
      env,
      { clock: clock() },
    );
    expect(right.code, right.stderr).toBe(0);
    expect(right.stdout).toMatch(/^sub-1: transco station 85;/);
    expect((await cli(['subs', 'list', '--json'], env, { clock: clock() })).stdout).not.toMatch(
      /Station 58/,
    );
  });
});
