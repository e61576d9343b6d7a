/**
 * The README is the way in, short enough to read in minutes; the reference is in
 * `docs/`, and between them every variable and every command is documented.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VARIABLES } from '../../src/config/index.js';
import { parseRuleFile } from '../../src/rules/loader.js';
import { cli } from '../cli/run-cli.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');

describe('README', () => {
  it('shows the two quick-start commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
  });

  it('is short: under 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(250);
  });

  it("shows the demo's rule files as they are in rules/", () => {
    const shown = [...readme.matchAll(/```yaml\n# (rules\/[\w-]+\.yaml):[^\n]*\n([\s\S]*?)```/g)];
    expect(shown.map((m) => m[1])).toEqual([
      'rules/gas-constraints.yaml',
      'rules/response-reminders.yaml',
      'rules/low-oac.yaml',
    ]);
    for (const [, file = '', yaml = ''] of shown) {
      const mine = parseRuleFile(yaml, file);
      expect(mine.problems, file).toEqual([]);
      const theirs = parseRuleFile(read(file), file);
      expect(theirs.problems, file).toEqual([]);
      const meaning = (rules: unknown) =>
        JSON.stringify(rules, (key, value: unknown) => (key === 'at' ? undefined : value));
      expect(meaning(mine.rules), file).toBe(meaning(theirs.rules));
    }
  });
});

describe('docs/', () => {
  it('shows in rules.md a rule file that pipewatch takes as it is', () => {
    const page = read('docs/rules.md');
    const shown = /## A rule file[\s\S]*?```yaml\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
    const parsed = parseRuleFile(shown, 'docs/rules.md');
    expect(parsed.problems).toEqual([]);
    expect(parsed.rules.map((r) => r.name)).toEqual([
      'transco-constraints',
      'tetco-response-reminders',
      'transco-low-oac',
    ]);
  });

  it('documents every environment variable pipewatch reads, in configuration.md', () => {
    const page = read('docs/configuration.md');
    for (const v of Object.values(VARIABLES)) expect(page, v.name).toContain(`\`${v.name}\``);
  });

  it('documents every command the CLI has, in commands.md', async () => {
    const page = read('docs/commands.md');
    const help = (await cli(['--help'])).stdout;
    const commands = [...help.matchAll(/^ {2}(\w[\w-]*)/gm)]
      .map((m) => m[1])
      .filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(page, command).toContain(`pipewatch ${command}`);
    const api = (await cli(['api', '--help'])).stdout;
    for (const [, sub] of api.matchAll(/^ {2}(\w[\w-]*)/gm)) {
      if (sub !== 'help') expect(page, `api ${sub}`).toMatch(new RegExp(`api ${sub}\\b`));
    }
  });
});
