import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { Store } from '../../src/store/index.js';
import { ManualClock } from '../support/clock.js';
import { cli } from './run-cli.js';

const START = new Date('2026-11-20T15:00:00Z');
const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({
    seed: 31,
    startAt: START,
    clock: new ManualClock(START),
    control: true,
  });
});
afterAll(async () => {
  await sim.close();
});

/** A rules folder whose rules print to the console: `run` needs no platform credentials. */
function consoleRules(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-rules-'));
  writeFileSync(
    join(dir, 'rules.yaml'),
    'rules:\n  - name: transco-constraints\n    notices:\n      pipelines: [transco]\n      types: [constraint]\n    notify:\n      - console: true\n',
  );
  return dir;
}

function env(dataDir: string, extra: Record<string, string> = {}) {
  return {
    PIPEWATCH_API_URL: sim.url,
    PIPEWATCH_API_USER: premium.username,
    PIPEWATCH_API_KEY: premium.key,
    PIPEWATCH_API_RATE: '100',
    PIPEWATCH_DATA_DIR: dataDir,
    PIPEWATCH_CAPACITY_PIPELINES: 'transco,texas-eastern',
    PIPEWATCH_RULES_DIR: consoleRules(),
    LOG_LEVEL: 'info',
    ...extra,
  };
}

describe('pipewatch run --once and status', () => {
  it('fills the database, and status --json shows every feed and the counts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-run-'));
    const run = await cli(['run', '--once'], env(dataDir));
    expect(run.stderr).not.toMatch(/"level":50/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^pipelines: ok\ncatalog: ok\nnotices: ok\ncapacity: ok\nretention: ok\nalerts: ok\n/m,
    );
    expect(run.stdout).toMatch(
      /^stored: \d+ pipelines, \d+ notices, \d+ capacity cycles\ndelivered: 0 alerts in 0 messages; 0 waiting for a retry, 0 failed for good\noutbox: 0 pending, 0 sent, 0 dead\n$/m,
    );
    const status = await cli(['status', '--json'], env(dataDir));
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout) as {
      healthy: boolean;
      feeds: Array<{ feed: string; last_success_at: string; interval_seconds: number }>;
      counts: { pipelines: number; notices: number; capacity_cycles: number };
    };
    expect(report.healthy).toBe(true);
    expect(report.feeds.map((f) => f.feed)).toEqual([
      'pipelines',
      'catalog',
      'notices',
      'capacity',
      'alerts',
      'retention',
    ]);
    expect(report.feeds.find((f) => f.feed === 'notices')?.interval_seconds).toBe(600);
    expect(report.counts.pipelines).toBeGreaterThanOrEqual(20);
    expect(report.counts.notices).toBeGreaterThan(0);
    expect(report.counts.capacity_cycles).toBeGreaterThan(0);
    for (const f of report.feeds) expect(f.last_success_at).toMatch(/Z$/);
  });

  it('a second run reports only what is new', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-run-'));
    await cli(['run', '--once'], env(dataDir));
    const quiet = await cli(['run', '--once'], env(dataDir));
    expect(quiet.stderr).not.toMatch(/\[new\]/);
    const added = sim.control.addNotice({
      pipeline_slug: 'transco',
      subject: 'Force Majeure - Station 165',
    });
    const loud = await cli(['run', '--once'], env(dataDir));
    expect(loud.stderr.match(/\[new\][^\n]*/g)).toEqual([expect.stringContaining(`#${added.id}`)]);
  });

  it('exits 1 when a feed fails, and status shows the error without the key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-run-'));
    const run = await cli(['run', '--once'], env(dataDir, { PIPEWATCH_API_KEY: 'S3KR1T-wrong' }));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/notices: failed: authentication failed/);
    expect(run.stderr).toMatch(/Check PIPEWATCH_API_USER and PIPEWATCH_API_KEY/);
    const status = await cli(['status'], env(dataDir));
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/notices\s+UNHEALTHY/);
    expect(status.stdout).toContain('The API user or key does not appear to be valid.');
    expect(status.stdout + run.stdout + run.stderr).not.toContain('S3KR1T');
  });

  it('refuses to start without PIPEWATCH_API_URL, in one line naming the ways that need none', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-run-'));
    const { PIPEWATCH_API_URL: _, ...withoutApi } = env(dataDir);
    for (const argv of [['run'], ['run', '--once']]) {
      const run = await cli(argv, withoutApi);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(
          /^pipewatch: PIPEWATCH_API_URL is not set: .*`pipewatch demo`.*`pipewatch run --simulator`/,
        ),
      ]);
    }
    // Nothing was polled, stored or created.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('run --simulator watches the built-in simulator, whatever PIPEWATCH_API_URL says', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-run-'));
    const { PIPEWATCH_API_URL: _, ...withoutApi } = env(dataDir);
    const run = await cli(['run', '--once', '--simulator'], withoutApi);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /watching the built-in simulator: its notices and capacity are invented/,
    );
    expect(run.stdout).toMatch(/^notices: ok$/m);
    // A URL that is set is not silently preferred, nor silently ignored.
    const other = mkdtempSync(join(tmpdir(), 'pipewatch-run-'));
    const both = await cli(
      ['run', '--once', '--simulator'],
      env(other, { PIPEWATCH_API_URL: 'http://127.0.0.1:9/' }),
    );
    expect(both.code).toBe(0);
    expect(both.stderr).toMatch(
      /--simulator: watching the built-in simulator, not the PIPEWATCH_API_URL/,
    );
  });

  it('status without a database says so and exits 1', async () => {
    const status = await cli(['status'], {
      PIPEWATCH_DATA_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-none-')),
    });
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(/no database at .*pipewatch\.db; run 'pipewatch run' first/);
  });
});

describe('pipewatch run as a process', () => {
  it('SIGTERM during a sync stops it, closes the database consistently and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-sigterm-'));
    // The notice sync's first response never comes: SIGTERM arrives mid-sync.
    sim.control.injectFault({ kind: 'delay', delayMs: 3_600_000, count: 1, path: '/ip/notices' });
    const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', main, 'run'], {
      env: { ...process.env, ...env(dataDir, { PIPEWATCH_HTTP_PORT: '0', LOG_LEVEL: 'debug' }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        // Feeds start together; by the catalog's first answer the held notice request is out.
        if (stderr.includes('"endpoint":"/catalog/hashes"')) resolve();
      });
      child.once('exit', () => reject(new Error(`exited early:\n${stderr}`)));
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const store = Store.open(dataDir);
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(store.counts().pipelines).toBeGreaterThan(0);
    store.close();
    sim.control.clearFaults();
  }, 30_000);
});
