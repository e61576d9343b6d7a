import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';
import { storePipelines } from '../fakes/pipelines.js';
import { cli } from './run-cli.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const AT = '2026-11-20T15:00:00Z';

/** A data directory with no database: slugs cannot be checked. */
const noData = () => ({ PIPEWATCH_DATA_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-no-data-')) });

/** A data directory whose database holds the API's pipeline list, as `run` stores it. */
function withPipelines(slugs: string[]): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-pipelines-'));
  const store = Store.open(dir);
  storePipelines(store, slugs, AT);
  store.close();
  return { PIPEWATCH_DATA_DIR: dir };
}

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-validate-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('pipewatch rules validate', () => {
  it('summarises the example rules and exits 0', async () => {
    const env = withPipelines(['transco', 'texas-eastern']);
    const run = await cli(['rules', 'validate', 'rules'], env, { cwd: REPO });
    expect(run).toEqual({
      code: 0,
      stdout: 'rules: 3 rules in 3 files (1 notice rule, 1 deadline rule, 1 capacity rule)\n',
      stderr: '',
    });
  });

  it('reads PIPEWATCH_RULES_DIR when no directory is given', async () => {
    const dir = tempDir({
      'one.yml':
        'rules:\n  - name: a\n    deadlines: { before: 2h }\n    notify: [{ console: true }]\n',
    });
    const run = await cli(
      ['rules', 'validate'],
      { PIPEWATCH_RULES_DIR: dir, ...noData() },
      { cwd: dir },
    );
    expect(run.stdout).toBe(
      'rules: 1 rule in 1 file (0 notice rules, 1 deadline rule, 0 capacity rules)\n',
    );
    expect(run.code).toBe(0);
  });

  it('prints every problem as file:line:col: message, then their count, and exits 1', async () => {
    const dir = tempDir({
      'a.yaml': 'rules:\n  - name: ops\n    notices: {}\n    notify:\n      - slak: "#ops"\n',
      'b.yaml':
        'rules:\n  - name: ops\n    capacity: { oac_below: 10, clear_above: 5 }\n    notify: [{ console: true }]\n',
    });
    const run = await cli(['rules', 'validate', dir], noData(), { cwd: join(dir, '..') });
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
    const run = await cli(['rules', 'validate', 'nowhere'], noData(), { cwd: tmpdir() });
    expect(run.stdout).toBe('nowhere:1:1: rules directory not found: nowhere\n1 problem\n');
    expect(run.code).toBe(1);
  });

  it('reports a pipeline slug the API does not track, once its pipeline list is stored', async () => {
    const dir = tempDir({
      'oac.yaml':
        'rules:\n  - name: low-oac\n    capacity:\n      pipelines: [transcoo]\n      oac_below: 50000\n    notify: [{ console: true }]\n',
    });
    const env = withPipelines(['transco', 'texas-eastern']);
    const run = await cli(['rules', 'validate', dir], env, { cwd: dir });
    expect(run).toEqual({
      code: 1,
      stdout:
        "oac.yaml:4:19: rule 'low-oac': pipeline 'transcoo' is not tracked by the API — did you mean 'transco'?\n1 problem\n",
      stderr: '',
    });
  });

  it('says in one line that slugs were not checked when no pipeline list is stored', async () => {
    const env = noData();
    const run = await cli(['rules', 'validate', 'rules'], env, { cwd: REPO });
    expect(run).toEqual({
      code: 0,
      stdout: 'rules: 3 rules in 3 files (1 notice rule, 1 deadline rule, 1 capacity rule)\n',
      stderr: `pipewatch: pipeline slugs were not checked against the API: no database at ${env.PIPEWATCH_DATA_DIR}; run 'pipewatch run' once to store the API's pipeline list\n`,
    });
    const empty = withPipelines([]);
    const none = await cli(['rules', 'validate', 'rules'], empty, { cwd: REPO });
    expect(none.code).toBe(0);
    expect(none.stderr).toBe(
      "pipewatch: pipeline slugs were not checked against the API: no pipeline list stored yet; run 'pipewatch run' once to store the API's pipeline list\n",
    );
  });

  it('--json: the summary counts when valid', async () => {
    const env = withPipelines(['transco', 'texas-eastern']);
    const run = await cli(['rules', 'validate', 'rules', '--json'], env, {
      cwd: REPO,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      valid: true,
      rules: 3,
      files: 3,
      notices: 1,
      deadlines: 1,
      capacity: 1,
      pipelines_checked: true,
      pipelines_note: null,
    });
  });

  it('--json: each problem as an object with file, line, col and message, exit 1', async () => {
    const dir = tempDir({
      'a.yaml':
        'rules:\n  - name: ops\n    notices: { pipelines: [transcoo] }\n    notify:\n      - slak: "#ops"\n',
    });
    const run = await cli(['rules', 'validate', dir, '--json'], withPipelines(['transco']), {
      cwd: dir,
    });
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { valid: boolean; problems: unknown[] };
    expect(report.valid).toBe(false);
    expect(report.problems).toEqual([
      { file: 'a.yaml', line: 5, col: 9, message: "unknown target 'slak' — did you mean 'slack'?" },
    ]);
  });
});
