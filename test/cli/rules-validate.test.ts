import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { storeLocations, storePipelines } from '../fakes/pipelines.js';
import { InstantClock, ManualClock } from '../support/clock.js';
import { useTempStores } from '../support/temp-store.js';
import { cli } from './run-cli.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const AT = '2026-11-20T15:00:00Z';

/** A data directory with no database: slugs cannot be checked. */
const noData = () => ({ PIPEWATCH_DATA_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-no-data-')) });

const stores = useTempStores('pipewatch-pipelines-');

/**
 * A data directory whose database holds the API's pipeline list, as `run` stores it, and
 * a cycle of Transco's capacity with Station 85 in it.
 */
function withPipelines(slugs: string[]): Record<string, string> {
  const { store, dir } = stores.open();
  storePipelines(store, slugs, AT);
  if (slugs.includes('transco'))
    storeLocations(
      store,
      'transco',
      [
        ['STATION 85', '1000085'],
        ['PSE&G LINDEN', '1001234'],
        ['STATION 165', '1000165'],
      ],
      AT,
    );
  store.close();
  return { PIPEWATCH_DATA_DIR: dir };
}

/** The time validate runs at: a day after the capacity above was stored. */
const clock = () => new InstantClock(new Date('2026-11-21T15:00:00Z'));

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-validate-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('pipewatch rules validate', () => {
  it('summarises the example rules and exits 0', async () => {
    const env = withPipelines(['transco', 'texas-eastern']);
    const run = await cli(['rules', 'validate', 'rules'], env, { cwd: REPO, clock: clock() });
    expect(run).toEqual({
      code: 0,
      stdout: 'rules: 3 rules in 3 files (1 notice rule, 1 deadline rule, 1 capacity rule)\n',
      stderr: '',
    });
  });

  it('reads PIPEWATCH_RULES_DIR when no directory is given', async () => {
    const dir = tempDir({
      'one.yml':
        'rules:\n  - name: a\n    deadlines: { before: 2h }\n    notify: [{ console: true }]\n',
    });
    const run = await cli(
      ['rules', 'validate'],
      { PIPEWATCH_RULES_DIR: dir, ...noData() },
      { cwd: dir },
    );
    expect(run.stdout).toBe(
      'rules: 1 rule in 1 file (0 notice rules, 1 deadline rule, 0 capacity rules)\n',
    );
    expect(run.code).toBe(0);
  });

  it('prints every problem as file:line:col: message, then their count, and exits 1', async () => {
    const dir = tempDir({
      'a.yaml': 'rules:\n  - name: ops\n    notices: {}\n    notify:\n      - slak: "#ops"\n',
      'b.yaml':
        'rules:\n  - name: ops\n    capacity: { oac_below: 10, clear_above: 5 }\n    notify: [{ console: true }]\n',
    });
    const run = await cli(['rules', 'validate', dir], noData(), {
      cwd: join(dir, '..'),
      clock: clock(),
    });
    const base = dir.slice(join(dir, '..').length + 1);
    expect(run.stdout).toBe(
      [
        `${base}/a.yaml:5:9: unknown target 'slak' — did you mean 'slack'?`,
        `${base}/b.yaml:2:5: duplicate rule name 'ops', first used at ${base}/a.yaml:2:5`,
        `${base}/b.yaml:3:45: clear_above: must be above the threshold (10)`,
        '3 problems',
        '',
      ].join('\n'),
    );
    expect(run.code).toBe(1);
  });

  it('counts a missing directory as a problem', async () => {
    const run = await cli(['rules', 'validate', 'nowhere'], noData(), {
      cwd: tmpdir(),
      clock: clock(),
    });
    expect(run.stdout).toBe('nowhere:1:1: rules directory not found: nowhere\n1 problem\n');
    expect(run.code).toBe(1);
  });

  it('reports a pipeline slug the API does not track, once its pipeline list is stored', async () => {
    const dir = tempDir({
      'oac.yaml':
        'rules:\n  - name: low-oac\n    capacity:\n      pipelines: [transcoo]\n      oac_below: 50000\n    notify: [{ console: true }]\n',
    });
    const env = withPipelines(['transco', 'texas-eastern']);
    const run = await cli(['rules', 'validate', dir], env, { cwd: dir, clock: clock() });
    expect(run).toEqual({
      code: 1,
      stdout:
        "oac.yaml:4:19: rule 'low-oac': pipeline 'transcoo' is not tracked by the API — did you mean 'transco'?\n1 problem\n",
      stderr: '',
    });
  });

  it('says in one line each that slugs and locations were not checked when nothing is known, and passes', async () => {
    const env = noData();
    const run = await cli(['rules', 'validate', 'rules'], env, { cwd: REPO, clock: clock() });
    expect(run).toEqual({
      code: 0,
      stdout: 'rules: 3 rules in 3 files (1 notice rule, 1 deadline rule, 1 capacity rule)\n',
      stderr: [
        `pipewatch: pipeline slugs were not checked against the API: no database at ${env.PIPEWATCH_DATA_DIR}; run 'pipewatch run' once to store the API's pipeline list, or set PIPEWATCH_API_URL`,
        `pipewatch: locations were not checked against capacity: rules/low-oac.yaml:9:19 'STATION 85': no database at ${env.PIPEWATCH_DATA_DIR}, and PIPEWATCH_API_URL is unset; run 'pipewatch run' once, or set PIPEWATCH_API_URL`,
        '',
      ].join('\n'),
    });
    const empty = withPipelines([]);
    const none = await cli(['rules', 'validate', 'rules'], empty, { cwd: REPO, clock: clock() });
    expect(none.code).toBe(0);
    expect(none.stderr).toBe(
      [
        "pipewatch: pipeline slugs were not checked against the API: no pipeline list stored yet; run 'pipewatch run' once to store the API's pipeline list, or set PIPEWATCH_API_URL",
        "pipewatch: locations were not checked against capacity: rules/low-oac.yaml:9:19 'STATION 85': no capacity of transco stored in the last 7 days, and PIPEWATCH_API_URL is unset; run 'pipewatch run' once, or set PIPEWATCH_API_URL",
        '',
      ].join('\n'),
    );
    const json = await cli(['rules', 'validate', 'rules', '--json'], empty, {
      cwd: REPO,
      clock: clock(),
    });
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: true,
      pipelines_checked: false,
      locations_checked: false,
      locations_note: expect.stringMatching(/^locations were not checked against capacity: /),
    });
  });

  it('reports a location no stored capacity of its pipeline matches, with the one meant, and exits 1', async () => {
    const dir = tempDir({
      'oac.yaml': `rules:
  - name: low-oac
    capacity:
      pipelines: [transco]
      locations: ["STATION 58", "station 85", "1001234", "1000156", "PSE&G"]
      oac_below: 50000
    notify: [{ console: true }]
`,
    });
    const run = await cli(['rules', 'validate', dir], withPipelines(['transco']), {
      cwd: dir,
      clock: clock(),
    });
    expect(run).toEqual({
      code: 1,
      stdout: [
        "oac.yaml:5:19: rule 'low-oac': location 'STATION 58' matches no location of transco — did you mean 'STATION 85'?",
        "oac.yaml:5:58: rule 'low-oac': location '1000156' matches no location of transco — did you mean '1000165'?",
        '2 problems',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('counts only the capacity stored in the last 7 days', async () => {
    const dir = tempDir({
      'oac.yaml':
        'rules:\n  - name: low-oac\n    capacity: { pipelines: [transco], locations: ["STATION 58"], oac_below: 1 }\n    notify: [{ console: true }]\n',
    });
    const later = new InstantClock(new Date('2026-11-27T15:00:01Z'));
    const run = await cli(['rules', 'validate', dir], withPipelines(['transco']), {
      cwd: dir,
      clock: later,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^pipewatch: locations were not checked against capacity: oac\.yaml:3:51 'STATION 58': no capacity of transco stored in the last 7 days, and PIPEWATCH_API_URL is unset/,
    );
  });

  it('--json: the summary counts when valid', async () => {
    const env = withPipelines(['transco', 'texas-eastern']);
    const run = await cli(['rules', 'validate', 'rules', '--json'], env, {
      cwd: REPO,
      clock: clock(),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      valid: true,
      rules: 3,
      files: 3,
      notices: 1,
      deadlines: 1,
      capacity: 1,
      pipelines_checked: true,
      pipelines_note: null,
      locations_checked: true,
      locations_note: null,
    });
  });

  it('--json: each problem as an object with file, line, col and message, exit 1', async () => {
    const dir = tempDir({
      'a.yaml':
        'rules:\n  - name: ops\n    notices: { pipelines: [transcoo] }\n    notify:\n      - slak: "#ops"\n',
    });
    const run = await cli(['rules', 'validate', dir, '--json'], withPipelines(['transco']), {
      cwd: dir,
      clock: clock(),
    });
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { valid: boolean; problems: unknown[] };
    expect(report.valid).toBe(false);
    expect(report.problems).toEqual([
      { file: 'a.yaml', line: 5, col: 9, message: "unknown target 'slak' — did you mean 'slack'?" },
    ]);
  });
});

describe('pipewatch rules validate with PIPEWATCH_API_URL set', () => {
  const START = new Date('2026-11-20T15:00:00Z');
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 43, startAt: START, clock: new ManualClock(START) });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('asks the API for its pipeline list and latest capacity when nothing is stored', async () => {
    const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
    const dir = tempDir({
      'oac.yaml': `rules:
  - name: typo-oac
    capacity:
      pipelines: [transco, texas-eastren]
      locations: ["STATION 58", "PSE&G LINDEN"]
      oac_below: 50000
    notify: [{ console: true }]
`,
    });
    const env = {
      ...noData(),
      PIPEWATCH_API_URL: sim.url,
      PIPEWATCH_API_USER: premium.username,
      PIPEWATCH_API_KEY: premium.key,
    };
    const run = await cli(['rules', 'validate', dir], env, { cwd: dir, clock: clock() });
    expect(run).toEqual({
      code: 1,
      stdout: [
        "oac.yaml:4:28: rule 'typo-oac': pipeline 'texas-eastren' is not tracked by the API — did you mean 'texas-eastern'?",
        "oac.yaml:5:19: rule 'typo-oac': location 'STATION 58' matches no location of transco — did you mean 'STATION 85'?",
        '2 problems',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it("checks a rule naming no pipeline against every pipeline's latest capacity", async () => {
    const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
    const dir = tempDir({
      'oac.yaml': `rules:
  - name: anywhere
    capacity: { locations: ["STATION 85", "NO SUCH POINT 12"], oac_below: 1 }
    notify: [{ console: true }]
`,
    });
    const env = {
      ...noData(),
      PIPEWATCH_API_URL: sim.url,
      PIPEWATCH_API_USER: premium.username,
      PIPEWATCH_API_KEY: premium.key,
      PIPEWATCH_API_RATE: '100',
    };
    const run = await cli(['rules', 'validate', dir], env, { cwd: dir, clock: clock() });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(
      "oac.yaml:3:43: rule 'anywhere': location 'NO SUCH POINT 12' matches no location of any pipeline\n1 problem\n",
    );
  });
});
