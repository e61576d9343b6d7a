import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { InstantClock, ManualClock } from '../support/clock.js';
import { cli, startCli, until } from './run-cli.js';

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
  const rulesDir = mkdtempSync(join(tmpdir(), 'pipewatch-plan-rules-'));
  writeFileSync(join(rulesDir, 'capacity.yaml'), rules);
  return {
    PIPEWATCH_API_URL: sim.url,
    PIPEWATCH_API_USER: premium.username,
    PIPEWATCH_API_KEY: premium.key,
    PIPEWATCH_API_RATE: '100',
    PIPEWATCH_DATA_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-plan-')),
    PIPEWATCH_RULES_DIR: rulesDir,
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

describe('what is polled follows the rules', () => {
  it('status shows which pipelines and cycles are fetched, and which rule asked', async () => {
    const env = setup(
      `rules:
  - name: transco-low-oac
    capacity: { pipelines: [transco], cycles: [timely, evening], oac_below: 50000 }
    notify: [{ console: true }]
  - name: tetco-pct
    capacity: { pipelines: [texas-eastern], oac_pct_below: 5 }
    notify: [{ console: true }]
`,
      { PIPEWATCH_CAPACITY_PIPELINES: 'tennessee' },
    );
    const run = await cli(['run', '--once'], env, { clock: clock() });
    expect(run.code).toBe(0);
    const status = await cli(['status'], env, { clock: clock() });
    expect(status.stdout).toContain('capacity plan: 3 pipelines, about 12.5 requests an hour');
    expect(status.stdout).toContain('  transco: latest, timely, evening (transco-low-oac)\n');
    expect(status.stdout).toContain(
      '  tennessee: latest, timely, evening, id1, id2, id3 (PIPEWATCH_CAPACITY_PIPELINES)\n',
    );
    const json = JSON.parse((await cli(['status', '--json'], env, { clock: clock() })).stdout);
    expect(json.capacity_plan.pipelines.map((p: { slug: string }) => p.slug)).toEqual([
      'tennessee',
      'texas-eastern',
      'transco',
    ]);
    expect(json.capacity_plan.pipelines[2]).toEqual({
      slug: 'transco',
      cycles: ['latest', 'timely', 'evening'],
      requested_by: [{ by: 'transco-low-oac', cycles: ['timely', 'evening'] }],
      implicit: false,
      capacity_missing_at: null,
    });
    expect(json.capacity_plan.requests_per_hour).toBe(12.5);
  });

  it('a rule naming no pipeline covers every tracked one, skipping those without capacity data', async () => {
    const env = setup(`rules:
  - name: anywhere
    capacity: { cycles: [id1], oac_pct_below: 1 }
    notify: [{ console: true }]
`);
    const run = await cli(['run', '--once'], env, { clock: clock() });
    expect(run.code).toBe(0);
    const json = JSON.parse((await cli(['status', '--json'], env, { clock: clock() })).stdout);
    const plan = json.capacity_plan.pipelines as Array<{
      slug: string;
      implicit: boolean;
      capacity_missing_at: string | null;
    }>;
    expect(plan.length).toBeGreaterThanOrEqual(20);
    expect(plan.every((p) => p.implicit)).toBe(true);
    expect(plan.find((p) => p.slug === 'kern-river')?.capacity_missing_at).toBe(
      '2026-11-20T15:01:00Z',
    );
    expect(plan.find((p) => p.slug === 'transco')?.capacity_missing_at).toBeNull();
  });

  it('a slug the API does not track is reported at start with the slug meant, and to the ops target', async () => {
    const env = setup(
      `rules:
  - name: typo-low-oac
    capacity:
      pipelines: [transcoo]
      oac_below: 50000
    notify: [{ console: true }]
`,
      { PIPEWATCH_OPS_TARGET: 'console' },
    );
    const run = await cli(['run', '--once'], env, { clock: clock() });
    expect(run.stderr).toMatch(
      /capacity\.yaml:4:19: rule 'typo-low-oac': pipeline 'transcoo' is not tracked by the API — did you mean 'transco'\?/,
    );
    expect(run.stdout).toMatch(
      /^ALERT pipewatch-operations → console: .*Rule 'typo-low-oac' names pipeline 'transcoo'.*did you mean 'transco'\?/m,
    );
    // The capacity feed asked for it all the same, and says which rule to fix.
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/unknown pipeline 'transcoo'.*check typo-low-oac/);

    const again = await cli(['run', '--once'], env, { clock: clock() });
    expect(again.stderr).toMatch(/pipeline 'transcoo' is not tracked by the API/);
    expect(again.stdout).not.toMatch(/^ALERT pipewatch-operations/m);
  });

  it('a rule change changes the plan at the next capacity run, and a typo in it is reported', async () => {
    const env = setup(`rules:
  - name: transco-low-oac
    capacity: { pipelines: [transco], oac_below: 50000 }
    notify: [{ console: true }]
`);
    const manual = new ManualClock(new Date(START.getTime() + 60_000));
    const stop = new AbortController();
    const running = startCli(
      ['run'],
      { ...env, PIPEWATCH_HTTP_PORT: '0', LOG_LEVEL: 'info' },
      { clock: manual, signal: stop.signal },
    );
    await until(() => /capacity plan: 1 pipeline\b/.test(running.stderr.text), running);
    writeFileSync(
      join(env.PIPEWATCH_RULES_DIR, 'more.yaml'),
      `rules:
  - name: tetco-low-oac
    capacity: { pipelines: [texas-eastren, texas-eastern], cycles: [id2], oac_below: 1000 }
    notify: [{ console: true }]
`,
    );
    await until(() => /rules reloaded: 2 in force/.test(running.stderr.text), running);
    await until(() => /pipeline 'texas-eastren' is not tracked/.test(running.stderr.text), running);
    await until(() => {
      manual.advance(60_000);
      return /capacity plan: 3 pipelines/.test(running.stderr.text);
    }, running);
    expect(running.stderr.text).toMatch(
      /more\.yaml:3:29: rule 'tetco-low-oac': pipeline 'texas-eastren' is not tracked by the API — did you mean 'texas-eastern'\?/,
    );
    expect(running.stderr.text).toMatch(
      /texas-eastern: latest, id2 \(tetco-low-oac\); texas-eastren: latest, id2 \(tetco-low-oac\); transco: latest, timely, evening, id1, id2, id3 \(transco-low-oac\)/,
    );
    stop.abort();
    expect((await running.done).code).toBe(0);
  });
});
