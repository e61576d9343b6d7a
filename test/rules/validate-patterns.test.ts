import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';

const WHY = 'patterns run in linear time, which rules out look-around and back-references';

/** A rules directory holding `text`, and a data directory with no database. */
function setup(text: string): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-patterns-'));
  writeFileSync(join(dir, 'ops.yaml'), text);
  return { dir, env: { PIPEWATCH_DATA_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-no-data-')) } };
}

describe('pipewatch rules validate, on patterns', () => {
  it('rejects (a+)+$-style danger only where it needs backtracking: file:line:col, why, exit 1', async () => {
    const { dir, env } = setup(`rules:
  - name: nested
    notices: { text: "(a+)+$" }
    notify: [{ console: true }]
  - name: lookahead
    notices:
      text: "force(?!\\\\s+majeure)"
    notify: [{ console: true }]
  - name: backref
    deadlines:
      before: 2h
      not: { text: '(\\w+) \\1' }
    notify: [{ console: true }]
`);
    const run = await cli(['rules', 'validate', dir], env, { cwd: dir });
    expect(run.stdout).toBe(
      [
        `ops.yaml:7:13: text: negative look-ahead (?!…) is not supported: ${WHY}; leave notices out with not: text:`,
        `ops.yaml:12:20: text: back-reference \\1 is not supported: ${WHY}; repeat the text instead`,
        '2 problems',
        '',
      ].join('\n'),
    );
    expect(run.code).toBe(1);
  });

  it('--json: the problem with its position and reason', async () => {
    const { dir, env } = setup(
      'rules:\n  - name: r\n    notices: { text: "(?<=no )OFO" }\n    notify: [{ console: true }]\n',
    );
    const run = await cli(['rules', 'validate', dir, '--json'], env, { cwd: dir });
    expect(run.code).toBe(1);
    expect((JSON.parse(run.stdout) as { problems: unknown[] }).problems).toEqual([
      {
        file: 'ops.yaml',
        line: 3,
        col: 22,
        message: `text: look-behind (?<=…) is not supported: ${WHY}`,
      },
    ]);
  });

  it('accepts the patterns RE2 runs, case-insensitive and Unicode ones included', async () => {
    const { dir, env } = setup(
      'rules:\n  - name: r\n    notices: { text: "force\\\\s+majeure|\\\\bÉTÉ\\\\b|(a+)+$" }\n    notify: [{ console: true }]\n',
    );
    const run = await cli(['rules', 'validate', dir], env, { cwd: dir });
    expect(run.stdout).toBe(
      'rules: 1 rule in 1 file (1 notice rule, 0 deadline rules, 0 capacity rules)\n',
    );
    expect(run.code).toBe(0);
  });
});
