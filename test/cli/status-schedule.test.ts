/**
 * `pipewatch status` says when the notice feed polls: locked onto the API's refresh
 * pattern, learned from the stored notices (the baseline's included), or on its interval.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { startSimulatedApi } from '../fakes/simulated-api.js';
import { InstantClock } from '../support/clock.js';
import { cli } from './run-cli.js';

const START = new Date('2026-11-20T15:00:00Z');
const sims: Simulator[] = [];
afterEach(async () => {
  for (const s of sims.splice(0)) await s.close();
});

/** A database filled by one `run --once` against a simulator refreshing every `refreshEveryMs`. */
async function filled(refreshEveryMs: number) {
  const api = await startSimulatedApi({
    seed: 31,
    start: START,
    rules: 'rules: []\n',
    refreshEveryMs,
  });
  sims.push(api.sim);
  const env = { ...api.env, PIPEWATCH_CAPACITY_PIPELINES: '' };
  const clock = { clock: new InstantClock(START) };
  expect((await cli(['run', '--once'], env, clock)).code).toBe(0);
  return {
    text: async () => (await cli(['status'], env, clock)).stdout,
    json: async () => JSON.parse((await cli(['status', '--json'], env, clock)).stdout),
  };
}

describe('status: the notice schedule', () => {
  it('shows the refresh pattern learned from the baseline', async () => {
    const status = await filled(10 * 60_000);
    expect(await status.text()).toMatch(
      /^notices: locked onto the 10 min refresh at :0[01]:\d\d past \(from 16 refreshes\)$/m,
    );
    const { notice_schedule: schedule } = await status.json();
    expect(schedule).toMatchObject({ locked: true, interval_seconds: 600, period_seconds: 600 });
    expect(schedule.refresh_at_seconds).toBeLessThanOrEqual(90);
    expect(schedule.window_start_seconds + schedule.window_seconds).toBeLessThanOrEqual(90);
  });

  it('shows the interval when the API dates notices as they happen', async () => {
    const status = await filled(0);
    expect(await status.text()).toMatch(/^notices: no refresh pattern yet: every 10m$/m);
    expect((await status.json()).notice_schedule).toEqual({
      locked: false,
      interval_seconds: 600,
      period_seconds: null,
      refresh_at_seconds: null,
      window_start_seconds: null,
      window_seconds: null,
      refreshes: null,
    });
  });
});
