import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { startSimulatedApi } from '../fakes/simulated-api.js';
import { InstantClock } from '../support/clock.js';
import { cli } from './run-cli.js';

const START = new Date('2026-11-20T15:00:00Z');
const RULES = `
rules:
  - name: transco-constraints
    notices:
      pipelines: [transco]
      types: [constraint]
    notify:
      - console: true
  - name: tetco-response
    deadlines:
      field: response_at
      before: [24h, 2h]
      pipelines: [texas-eastern]
    notify:
      - console: true
  - name: transco-low-oac
    capacity:
      pipelines: [transco]
      locations: ["STATION 85"]
      oac_below: 50000
      clear_above: 60000
    notify:
      - console: true
`;

let sim: Simulator;
let env: Record<string, string>;
const clock = () => new InstantClock(new Date(START.getTime() + 60_000));
const sql = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

beforeAll(async () => {
  ({ sim, env } = await startSimulatedApi({ seed: 41, start: START, rules: RULES }));
  env.LOG_LEVEL = 'warn';
});
afterAll(async () => {
  await sim.close();
});

describe('alerts end to end', () => {
  it('after a baseline, turns new notices, a near deadline and an OAC drop into alerts, once', async () => {
    const baseline = await cli(['run', '--once'], env, { clock: clock() });
    expect(baseline.code).toBe(0);
    expect(baseline.stdout).not.toMatch(/ALERT transco-constraints/);

    const constraint = sim.control.addNotice({
      pipeline_slug: 'transco',
      type: 'Capacity Constraint',
      subject: 'Capacity Constraint - Station 165',
      category: 'Critical',
      status: 'Initiate',
    });
    const ofo = sim.control.addNotice({
      pipeline_slug: 'texas-eastern',
      type: 'Operational Flow Order',
      subject: 'OFO - response required',
      response_at: sql(new Date(START.getTime() + 90 * 60_000)),
    });
    const latest = (await cli(['api', 'capacity', 'transco', '--json'], env)).stdout;
    const cycle = JSON.parse(latest) as { cycle: { cycle: 'id1'; gas_day: string } };
    sim.control.publishCycle({
      pipeline_slug: 'transco',
      cycle: cycle.cycle.cycle,
      gas_day: cycle.cycle.gas_day,
      locations: [
        { identifier: '1001234', location: 'STATION 85', opc: 200_000, tsq: 170_000, oac: 30_000 },
      ],
    });

    const run = await cli(['run', '--once'], env, { clock: clock() });
    expect(run.code).toBe(0);
    const alerts = run.stdout.split('\n').filter((l) => l.startsWith('ALERT'));
    expect(alerts).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^ALERT transco-constraints → console: transco new notice #${constraint.id} `),
        ),
        // Its 24h and 2h reminders both came due before it arrived: the 2h one goes out at once.
        expect.stringMatching(
          new RegExp(`^ALERT tetco-response → console: texas-eastern reminder: .*#${ofo.id} `),
        ),
        expect.stringMatching(
          /^ALERT transco-low-oac → console: transco capacity firing at STATION 85 \(1001234\): OAC 30,000/,
        ),
      ]),
    );

    const again = await cli(['run', '--once'], env, { clock: clock() });
    expect(again.stdout).not.toMatch(/^ALERT/m);
    expect(again.stdout).toMatch(/outbox: 0 pending, \d+ sent, 0 dead/);

    // No capacity variable is set: the capacity rule alone makes Transco's capacity fetched.
    sim.control.publishCycle({
      pipeline_slug: 'transco',
      cycle: cycle.cycle.cycle,
      gas_day: cycle.cycle.gas_day,
      locations: [{ identifier: '1001234', opc: 200_000, tsq: 130_000, oac: 70_000 }],
    });
    const recovered = await cli(['run', '--once'], env, { clock: clock() });
    expect(recovered.stdout.split('\n').filter((l) => l.startsWith('ALERT'))).toEqual([
      expect.stringMatching(
        /^ALERT transco-low-oac → console: transco capacity resolved at STATION 85/,
      ),
    ]);

    const why = await cli(['why', String(constraint.id)], env, { clock: clock() });
    expect(why.code).toBe(0);
    expect(why.stdout).toMatch(/transco-constraints\s+notice-new\s+alert\s+matched; to console/);
    expect(why.stdout).toMatch(/tetco-response: no: not matched on pipelines/);
    expect(why.stdout).toMatch(/Deliveries:\n\s+transco-constraints\|notice:\d+:v1\|console: sent/);

    const test = await cli(['rules', 'test', '--notice', String(constraint.id)], env, {
      clock: clock(),
    });
    expect(test.code).toBe(0);
    expect(test.stdout).toMatch(/transco-constraints: no: already alerted: v1 → console sent/);
    expect(test.stdout).toMatch(/tetco-response: no: not matched on pipelines/);
  });

  it('refuses to start on invalid rules, listing every problem with its position', async () => {
    const rulesDir = mkdtempSync(join(tmpdir(), 'pipewatch-bad-rules-'));
    writeFileSync(
      join(rulesDir, 'bad.yaml'),
      'rules:\n  - name: x\n    notices: {}\n    notify:\n      - slak: "#ops"\n',
    );
    const run = await cli(['run', '--once'], { ...env, PIPEWATCH_RULES_DIR: rulesDir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad\.yaml:5:\d+: .*slak.*did you mean 'slack'/);
  });
});
