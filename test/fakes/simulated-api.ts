/**
 * The upstream most end-to-end tests run against: the project's simulator on a manual
 * clock, with the control API, and the variables that point pipewatch at it as a premium
 * user, with a fresh data directory and the given rules in a fresh rules directory.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { ManualClock } from '../support/clock.js';

/** A fresh directory holding `yaml` as `rules.yaml`. */
export function rulesDirWith(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-rules-'));
  writeFileSync(join(dir, 'rules.yaml'), yaml);
  return dir;
}

/** A running simulator and the environment for a pipewatch that watches it. */
export interface SimulatedApi {
  sim: Simulator;
  env: Record<string, string>;
  dataDir: string;
}

/**
 * Starts the simulator at `start` with `seed` (and its notices published in refreshes
 * `refreshEveryMs` apart, when given); `rules` go in the rules directory.
 */
export async function startSimulatedApi(options: {
  seed: number;
  start: Date;
  rules: string;
  refreshEveryMs?: number;
}): Promise<SimulatedApi> {
  const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
  const sim = await startSimulator({
    seed: options.seed,
    startAt: options.start,
    clock: new ManualClock(options.start),
    control: true,
    ...(options.refreshEveryMs === undefined ? {} : { refreshEveryMs: options.refreshEveryMs }),
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-data-'));
  const env = {
    PIPEWATCH_API_URL: sim.url,
    PIPEWATCH_API_USER: premium.username,
    PIPEWATCH_API_KEY: premium.key,
    PIPEWATCH_API_RATE: '100',
    PIPEWATCH_DATA_DIR: dataDir,
    PIPEWATCH_RULES_DIR: rulesDirWith(options.rules),
  };
  return { sim, env, dataDir };
}
