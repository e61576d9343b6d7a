/** The exit status of each failure that reaches the command line, by its code. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadInputError } from '../../src/cli/errors.js';
import { EXIT_OUTCOMES, exitOutcome, failureCode } from '../../src/cli/exit-status.js';
import { ConfigError } from '../../src/config/index.js';
import { RulesInvalidError } from '../../src/rules/errors.js';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { DatabaseError } from '../../src/store/database.js';
import {
  AuthenticationError,
  ServerError,
  UnavailableError,
  UpstreamErrorCode,
} from '../../src/upstream/errors.js';
import { ManualClock } from '../support/clock.js';
import { cli } from './run-cli.js';

const context = { method: 'GET', endpoint: '/ip/notices', host: 'api.example.com' };

describe('exitOutcome', () => {
  it.each<[string, number]>([
    ['commander.helpDisplayed', 0],
    ['commander.help', 0],
    ['commander.version', 0],
    ['commander.unknownOption', 2],
    ['commander.missingArgument', 2],
    ['commander.excessArguments', 2],
    ['CONFIG_INVALID', 2],
    ['RULES_INVALID', 2],
    ['BAD_INPUT', 2],
    ['DATABASE', 1],
    ['OUTPUT_CLOSED', 0],
    ['OUTPUT_FAILED', 1],
    ...Object.values(UpstreamErrorCode).map((code): [string, number] => [code, 1]),
  ])('%s: %i', (code, status) => {
    expect(exitOutcome(code)?.status).toBe(status);
  });

  it.each([undefined, 'ENOENT', 'SQLITE_BUSY', 'CAPACITY_SYNC', 'TIMEOUT', 'other.thing'])(
    '%s is not foreseen',
    (code) => {
      expect(exitOutcome(code)).toBeUndefined();
    },
  );

  it('prints nothing more for what commander printed or a closed stdout, and a hint for refused credentials', () => {
    const quiet = Object.entries(EXIT_OUTCOMES).filter(([, o]) => o.quiet);
    expect(
      quiet.map(([code]) => code).every((c) => c.startsWith('commander.') || c === 'OUTPUT_CLOSED'),
    ).toBe(true);
    expect(exitOutcome('UPSTREAM_AUTH')?.hint).toBe(
      'check PIPEWATCH_API_USER and PIPEWATCH_API_KEY',
    );
    expect(exitOutcome('UPSTREAM_SERVER')?.hint).toBeUndefined();
  });
});

describe('failureCode', () => {
  it.each([
    ['a usage error', new CommanderError(1, 'commander.unknownOption', 'x'), 2],
    ['a bad setting', new ConfigError(['PIPEWATCH_X: wrong']), 2],
    ['invalid rules', new RulesInvalidError([]), 2],
    ['a bad input file', new BadInputError(['f.json: wrong']), 2],
    ['the database', new DatabaseError('locked'), 1],
    ['refused credentials', new AuthenticationError('refused', { context }), 1],
    ['a failing API', new ServerError('failed', { context }), 1],
    ['an API still failing', new UnavailableError('gone', { context, attempts: 5 }), 1],
  ])('%s reaches the command line with a code of the table', (_, error, status) => {
    expect(exitOutcome(failureCode(error))?.status).toBe(status);
  });

  it('reads only text codes', () => {
    expect(failureCode(new DOMException('stopped', 'AbortError'))).toBeUndefined();
    expect(failureCode(null)).toBeUndefined();
    expect(failureCode('text')).toBeUndefined();
  });
});

describe('the command line', () => {
  const START = new Date('2026-11-20T15:00:00Z');
  let sim: Simulator;
  let env: Record<string, string>;
  let key: string;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 11, startAt: START, clock: new ManualClock(START) });
    const user = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-exit-'));
    env = {
      PIPEWATCH_API_URL: sim.url,
      PIPEWATCH_API_USER: user.username,
      PIPEWATCH_API_KEY: 'not-the-key',
      PIPEWATCH_DATA_DIR: join(dir, 'data'),
      PIPEWATCH_RULES_DIR: join(dir, 'rules'),
    };
    key = user.key;
    mkdirSync(env.PIPEWATCH_RULES_DIR!);
    writeFileSync(join(env.PIPEWATCH_RULES_DIR!, 'bad.yaml'), 'rules:\n  - name: x\n');
  });
  afterAll(() => sim.close());

  it('exits 1 for refused credentials, saying what to check after what the API said', async () => {
    const run = await cli(['api', 'notices'], env);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines.at(-1)).toBe('pipewatch: check PIPEWATCH_API_USER and PIPEWATCH_API_KEY');
    expect(lines.at(-2)).toMatch(/^pipewatch: authentication failed \(HTTP 401\)/);
  });

  it('exits 2 for invalid rule files, listing every problem', async () => {
    const run = await cli(['run', '--once'], { ...env, PIPEWATCH_API_KEY: key });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^pipewatch: \d+ problems? in the rule files:\n.*bad\.yaml/m);
  });
});
