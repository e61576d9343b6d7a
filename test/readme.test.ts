import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VARIABLES } from '../src/config/index.js';
import { cli } from './cli/run-cli.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('shows the two quick-start commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
  });

  it('documents every environment variable pipewatch reads', () => {
    for (const v of Object.values(VARIABLES)) expect(readme, v.name).toContain(`\`${v.name}\``);
  });

  it('documents every command the CLI has', async () => {
    const help = (await cli(['--help'])).stdout;
    const commands = [...help.matchAll(/^ {2}(\w[\w-]*)/gm)]
      .map((m) => m[1])
      .filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(readme, command).toContain(`pipewatch ${command}`);
    const api = (await cli(['api', '--help'])).stdout;
    for (const [, sub] of api.matchAll(/^ {2}(\w[\w-]*)/gm)) {
      if (sub !== 'help') expect(readme, `api ${sub}`).toMatch(new RegExp(`api ${sub}\\b`));
    }
  });
});
