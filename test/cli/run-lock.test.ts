/**
 * One `pipewatch run` per SQLite database, with real processes: while a daemon runs, a
 * second run on its data directory is refused at start, naming it; once the daemon is
 * killed (SIGKILL, nothing cleaned up), the next run starts at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { STEP_HANG_MS, STORY_HANG_MS, startDaemon } from '../fakes/daemon-process.js';
import { startSimulatedApi } from '../fakes/simulated-api.js';
import { cli } from './run-cli.js';

const RULES = `
rules:
  - name: transco-constraints
    notices:
      pipelines: [transco]
      types: [constraint]
    notify:
      - console: true
`;

let sim: Simulator;
let env: Record<string, string>;
let dataDir: string;

beforeAll(async () => {
  ({ sim, env, dataDir } = await startSimulatedApi({
    seed: 11,
    start: new Date('2026-11-20T15:00:00Z'),
    rules: RULES,
  }));
});
afterAll(async () => {
  await sim.close();
});

describe('one run per database', { timeout: STORY_HANG_MS }, () => {
  it(
    'refuses a second run beside a daemon, and starts at once after the daemon is killed',
    async () => {
      const daemon = startDaemon(env);
      try {
        await daemon.http;
        const second = await cli(['run', '--once'], env);
        expect(second.code).toBe(1);
        expect(second.stderr).toContain(`another pipewatch run (pid ${daemon.pid} on `);
        expect(second.stderr).toContain(`is using the database in ${dataDir}`);
        expect(second.stdout).toBe('');

        expect(await daemon.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
        const after = await cli(['run', '--once'], env);
        expect(after.code, after.stderr).toBe(0);
      } finally {
        daemon.kill();
      }
    },
    STEP_HANG_MS * 2,
  );
});
