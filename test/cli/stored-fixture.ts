/**
 * A data directory filled by real `pipewatch run --once` cycles against the simulator:
 * a baseline, then a constraint notice that alerts, a flow order whose 24 h and 2 h
 * reminders passed before it arrived (its 30 min one is still ahead), a maintenance
 * notice no rule of the run matches, and an OAC drop at Station 85. What `rules test`
 * and `why` explain.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { InstantClock, ManualClock } from '../support/clock.js';
import { cli } from './run-cli.js';

/** When the simulator starts and the added notices are posted. */
export const START = new Date('2026-11-20T15:00:00Z');
/** When both runs happen. */
export const RUN_AT = new Date(START.getTime() + 60_000);

/** The rules `run` decides with: console only, so every channel is configured. */
export const RUN_RULES = `
rules:
  - name: transco-constraints
    notices: { pipelines: [transco], types: [constraint] }
    notify: [{ console: true }]
  - name: tetco-response
    deadlines: { field: response_at, before: [24h, 2h, 30m], pipelines: [texas-eastern] }
    notify: [{ console: true }]
  - name: transco-low-oac
    capacity: { pipelines: [transco], locations: ["STATION 85"], oac_below: 50000, clear_above: 60000 }
    notify: [{ console: true }]
`;

export interface StoredFixture {
  sim: Simulator;
  /** The environment `run` used. */
  env: Record<string, string>;
  ids: { constraint: number; ofo: number; maintenance: number };
  close(): Promise<void>;
}

/** Options for a command run at `d`. */
export const at = (d: Date) => ({ clock: new InstantClock(d) });

/** `2026-11-20 15:00:00`, the API's datetime form. */
export const sql = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/** A new temporary directory holding `files`. */
export function tempDir(prefix: string, files: Record<string, string> = {}): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}

/** Starts the simulator and runs the baseline, the notices and the OAC drop through `run --once`. */
export async function storeNotices(): Promise<StoredFixture> {
  const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
  const sim = await startSimulator({
    seed: 41,
    startAt: START,
    clock: new ManualClock(START),
    control: true,
  });
  const env = {
    PIPEWATCH_API_URL: sim.url,
    PIPEWATCH_API_USER: premium.username,
    PIPEWATCH_API_KEY: premium.key,
    PIPEWATCH_API_RATE: '100',
    PIPEWATCH_DATA_DIR: tempDir('pipewatch-stored-data-'),
    PIPEWATCH_RULES_DIR: tempDir('pipewatch-run-rules-', { 'rules.yaml': RUN_RULES }),
  };
  expect((await cli(['run', '--once'], env, at(RUN_AT))).code).toBe(0);
  const constraint = sim.control.addNotice({
    pipeline_slug: 'transco',
    type: 'Capacity Constraint',
    subject: 'Capacity Constraint - Station 165',
    category: 'Critical',
    status: 'Initiate',
  }).id;
  const ofo = sim.control.addNotice({
    pipeline_slug: 'texas-eastern',
    type: 'Operational Flow Order',
    subject: 'OFO - response required',
    response_at: sql(new Date(START.getTime() + 90 * 60_000)),
  }).id;
  const maintenance = sim.control.addNotice({
    pipeline_slug: 'transco',
    type: 'Planned Maintenance',
    subject: 'Maintenance at Station 210',
    category: 'Non-Critical',
  }).id;
  const latest = sim.control.latestCycle('transco')!;
  sim.control.publishCycle({
    pipeline_slug: 'transco',
    cycle: latest.cycle as 'id1',
    gas_day: latest.gasDay,
    locations: [
      { identifier: '1001234', location: 'STATION 85', opc: 200_000, tsq: 170_000, oac: 30_000 },
    ],
  });
  expect((await cli(['run', '--once'], env, at(RUN_AT))).code).toBe(0);
  return { sim, env, ids: { constraint, ofo, maintenance }, close: () => sim.close() };
}
