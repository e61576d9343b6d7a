import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-validate-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('pipewatch rules validate', () => {
  it('summarises the example rules and exits 0', async () => {
    const run = await cli(['rules', 'validate', 'rules'], {}, { cwd: REPO });
    expect(run).toEqual({
      code: 0,
      stdout: 'rules: 3 rules in 3 files (1 notices, 1 deadlines, 1 capacity)\n',
      stderr: '',
    });
  });

  it('reads PIPEWATCH_RULES_DIR when no directory is given', async () => {
    const dir = tempDir({
      'one.yml':
        'rules:\n  - name: a\n    deadlines: { before: 2h }\n    notify: [{ console: true }]\n',
    });
    const run = await cli(['rules', 'validate'], { PIPEWATCH_RULES_DIR: dir }, { cwd: dir });
    expect(run.stdout).toBe('rules: 1 rule in 1 file (0 notices, 1 deadlines, 0 capacity)\n');
    expect(run.code).toBe(0);
  });

  it('prints every problem as file:line:col: message, then their count, and exits 1', async () => {
    const dir = tempDir({
      'a.yaml': 'rules:\n  - name: ops\n    notices: {}\n    notify:\n      - slak: "#ops"\n',
      'b.yaml':
        'rules:\n  - name: ops\n    capacity: { oac_below: 10, clear_above: 5 }\n    notify: [{ console: true }]\n',
    });
    const run = await cli(['rules', 'validate', dir], {}, { cwd: join(dir, '..') });
    const base = dir.slice(join(dir, '..').length + 1);
    expect(run.stdout).toBe(
      [
        `${base}/a.yaml:5:9: unknown target 'slak' — did you mean 'slack'?`,
        `${base}/b.yaml:2:5: duplicate rule name 'ops', first used at ${base}/a.yaml:2:5`,
        `${base}/b.yaml:3:45: clear_above: must be above the threshold (10)`,
        '3 problems',
        '',
      ].join('\n'),
    );
    expect(run.code).toBe(1);
  });

  it('counts a missing directory as a problem', async () => {
    const run = await cli(['rules', 'validate', 'nowhere'], {}, { cwd: tmpdir() });
    expect(run.stdout).toBe('nowhere:1:1: rules directory not found: nowhere\n1 problem\n');
    expect(run.code).toBe(1);
  });
});
