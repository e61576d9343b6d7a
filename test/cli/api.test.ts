import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { PipelineApiClient } from '../../src/upstream/client.js';
import { ManualClock } from '../support/clock.js';
import { cli, startCli } from './run-cli.js';

const START = new Date('2026-11-20T15:00:00Z');
const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
let sim: Simulator;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, startAt: START, clock: new ManualClock(START) });
  env = {
    PIPEWATCH_API_URL: sim.url,
    PIPEWATCH_API_USER: premium.username,
    PIPEWATCH_API_KEY: premium.key,
    PIPEWATCH_API_RATE: '100',
  };
});
afterAll(async () => {
  await sim.close();
});

describe('pipewatch api', () => {
  it('notices --pipeline transco --page 2 --json prints normalised notices', async () => {
    const run = await cli(
      ['api', 'notices', '--pipeline', 'transco', '--page', '2', '--json'],
      env,
    );
    expect(run.code).toBe(0);
    const notices = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
    expect(notices.length).toBeGreaterThan(0);
    for (const n of notices) {
      expect(n.pipeline_slug).toBe('transco');
      expect(n.posted_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(n.end_at === null || typeof n.end_at === 'string').toBe(true);
    }
  });

  it('notices --json carries a placeholder end as null, flagged open-ended', async () => {
    const run = await cli(['api', 'notices', '--pipeline', 'transco', '--json'], env);
    expect(run.code).toBe(0);
    const notices = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
    expect(notices.every((n) => typeof n.open_ended === 'boolean')).toBe(true);
    // The simulator's Transco flow order runs "until" 2049-12-31.
    const open = notices.filter((n) => n.open_ended === true);
    expect(open.length).toBeGreaterThan(0);
    for (const n of open) expect(n.end_at).toBeNull();
    expect(JSON.stringify(notices)).not.toContain('2049-12-31');
  });

  it('capacity transco --cycle timely --json prints numbers for the quantities', async () => {
    const run = await cli(['api', 'capacity', 'transco', '--cycle', 'timely', '--json'], env);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout) as {
      cycle: { cycle: string };
      locations: Array<Record<string, unknown>>;
    };
    expect(data.cycle.cycle).toBe('timely');
    for (const l of data.locations)
      for (const q of ['dc', 'opc', 'tsq', 'oac']) expect(typeof l[q]).toBe('number');
  });

  it('prints readable tables without --json', async () => {
    const notices = await cli(['api', 'notices', '--pipeline', 'transco'], env);
    expect(notices.stdout).toMatch(/^\s*id\s+posted\s+pipeline\s+type/);
    expect(notices.stdout).toMatch(/\n\d+ notices \(page 1 of \d+, \d+ in all\)\n$/);
    const capacity = await cli(['api', 'capacity', 'texas-eastern'], env);
    expect(capacity.stdout).toMatch(/STRATTON RIDGE\s+79999\s+STX\s+D\s+DPQ\s+322,000\s+322,000/);
    const pipelines = await cli(['api', 'pipelines'], env);
    expect(pipelines.stdout).toMatch(/transco\s+Transcontinental/);
    const table = await cli(['api', 'table', 'pipelines'], env);
    expect(table.stdout).toMatch(/ID \(pk\)\s+NUMBER\(38,0\)/);
  });

  it('hashes, tables and hello', async () => {
    expect(JSON.parse((await cli(['api', 'hashes', '--json'], env)).stdout)).toHaveProperty(
      'tables',
    );
    expect(JSON.parse((await cli(['api', 'tables', '--json'], env)).stdout)).toHaveLength(2);
    expect((await cli(['api', 'hello'], env)).stdout).toBe('Hello, World\n');
    expect(
      JSON.parse((await cli(['api', 'hello', '--name', 'Ops', '--json'], env)).stdout),
    ).toEqual({ name: 'Ops' });
  });

  it('notices --all walks every page', async () => {
    const one = JSON.parse(
      (await cli(['api', 'notices', '--pipeline', 'iroquois', '--json'], env)).stdout,
    ) as unknown[];
    const all = JSON.parse(
      (await cli(['api', 'notices', '--pipeline', 'iroquois', '--all', '--json'], env)).stdout,
    ) as unknown[];
    expect(all.length).toBeGreaterThan(one.length);
  });

  it("a bad key exits 1 with the API's message and never prints the key", async () => {
    const run = await cli(['api', 'notices'], { ...env, PIPEWATCH_API_KEY: 'not-the-key' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The API user or key does not appear to be valid.');
    expect(run.stderr).not.toContain('not-the-key');
    expect(run.stdout).toBe('');
  });

  it("an unknown pipeline exits 1 with the API's message", async () => {
    const run = await cli(['api', 'capacity', 'nowhere'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/not found \(HTTP 404\)/);
  });

  it('without PIPEWATCH_API_URL answers from the built-in simulator', async () => {
    const run = await cli(['api', 'pipelines', '--json'], { LOG_LEVEL: 'silent' });
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as unknown[]).length).toBeGreaterThanOrEqual(20);
  });
});

describe('usage and configuration errors', () => {
  it('a bad environment value exits 2 with one line naming the variable', async () => {
    const run = await cli(['api', 'hello'], { PIPEWATCH_API_URL: 'nope' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      'pipewatch: PIPEWATCH_API_URL must be an http:// or https:// URL; got "nope" (example: PIPEWATCH_API_URL=https://api.example.com)',
    ]);
  });

  it("bad arguments exit 2 with commander's message", async () => {
    const cycle = await cli(['api', 'capacity', 'transco', '--cycle', 'noon'], env);
    expect(cycle.code).toBe(2);
    expect(cycle.stderr).toMatch(/Allowed choices are latest, timely, evening, id1, id2, id3/);
    expect((await cli(['api', 'notices', '--page', '0'], env)).code).toBe(2);
    expect((await cli(['api', 'capacity', 'transco', '--gas-day', '11/20/2026'], env)).code).toBe(
      2,
    );
    expect((await cli(['frobnicate'], env)).code).toBe(2);
  });

  it('--help and --version exit 0', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/simulate/);
    const version = await cli(['--version']);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('pipewatch simulate', () => {
  it('serves the API until the signal, then stops', async () => {
    const controller = new AbortController();
    const running = startCli(
      ['simulate', '--port', '0', '--seed', '5'],
      {},
      { signal: controller.signal },
    );
    const [, url] = await running.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const api = new PipelineApiClient({ baseUrl: url!, user: premium.username, key: premium.key });
    expect((await api.pipelines()).data.length).toBeGreaterThanOrEqual(20);
    await api.close();
    controller.abort();
    const run = await running.done;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('PIPEWATCH_API_USER=pipewatch');
    expect(run.stdout).toMatch(/simulator stopped\n$/);
  });
});
