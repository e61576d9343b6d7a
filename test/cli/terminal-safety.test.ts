/**
 * Upstream text on the reader's terminal: a notice whose subject and text carry escape
 * sequences (set the window title, clear the screen, recolour), C1 controls, a bare
 * carriage return and a right-to-left override reaches people through `api notices`,
 * `why` and `rules test`. None of those characters reaches the terminal; the JSON
 * outputs keep them, as `\u` escapes, and parse back to the text the API sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { startSimulatedApi } from '../fakes/simulated-api.js';
import { InstantClock } from '../support/clock.js';
import { cli } from './run-cli.js';

const START = new Date('2026-11-20T15:00:00Z');
const SUBJECT = 'Outage \u001b]0;pwned\u0007\u001b[2J\u001b[31mred\u001b[0m \u009b31m \u202eevil';
const TEXT = 'line one\rALERT fake → console: injected\u001b[2K \u2066isolated\u2069 end';
const RULES = `
rules:
  - name: transco-all
    notices:
      pipelines: [transco]
    notify:
      - console: true
`;

const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let sim: Simulator;
let env: Record<string, string>;
let id: number;
let consoleOutput: string;
const clock = () => new InstantClock(new Date(START.getTime() + 60_000));

beforeAll(async () => {
  ({ sim, env } = await startSimulatedApi({ seed: 3, start: START, rules: RULES }));
  expect((await cli(['run', '--once'], env, { clock: clock() })).code).toBe(0);
  id = sim.control.addNotice({ pipeline_slug: 'transco', subject: SUBJECT, notice: TEXT }).id;
  const run = await cli(['run', '--once'], env, { clock: clock() });
  expect(run.code, run.stderr).toBe(0);
  consoleOutput = run.stdout;
});
afterAll(async () => {
  await sim.close();
});

describe('upstream text on a terminal', () => {
  it('the console channel prints no control or bidirectional character', () => {
    expect(consoleOutput).toMatch(/^ALERT transco-all → console: transco new notice/m);
    expect(consoleOutput).not.toMatch(UNSAFE);
  });

  it.each([
    ['api notices', ['api', 'notices', '--pipeline', 'transco']],
    ['why', () => ['why', String(id)]],
    ['rules test', () => ['rules', 'test', '--notice', String(id)]],
    ['rules test --render', () => ['rules', 'test', '--notice', String(id), '--render']],
  ] as const)('%s prints no control or bidirectional character', async (_name, argv) => {
    const args = typeof argv === 'function' ? argv() : [...argv];
    const run = await cli(args, env, { clock: clock() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Outage');
    expect(run.stdout).not.toMatch(UNSAFE);
    expect(run.stderr).not.toMatch(UNSAFE);
  });

  it.each([
    ['api notices --json', ['api', 'notices', '--pipeline', 'transco', '--json']],
    ['why --json', () => ['why', String(id), '--json']],
  ] as const)('%s escapes them and keeps the text as the API sent it', async (_name, argv) => {
    const args = typeof argv === 'function' ? argv() : [...argv];
    const run = await cli(args, env, { clock: clock() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(UNSAFE);
    expect(run.stdout).toContain('\\u202eevil');
    const parsed = JSON.parse(run.stdout) as unknown;
    const notices = Array.isArray(parsed) ? parsed : [(parsed as { notice: unknown }).notice];
    const notice = (notices as Array<{ id: number; subject: string; notice: string }>).find(
      (n) => n.id === id,
    );
    expect(notice?.subject).toBe(SUBJECT);
    expect(notice?.notice).toBe(TEXT);
  });
});
