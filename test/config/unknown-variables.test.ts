/**
 * A name under a pipewatch prefix that is no pipewatch variable is warned about, with
 * where it was set and the variable most likely meant: by `loadConfig`, after the lines
 * of a configuration error, and once in the log of a command. And an API URL carrying
 * the API's own path stops a command as a configuration error.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, readEnvironment } from '../../src/config/index.js';
import { cli } from '../cli/run-cli.js';

function dirWithDotEnv(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-env-'));
  writeFileSync(join(dir, '.env'), text);
  return dir;
}

describe('unknown variables', () => {
  it('are warned about with the variable meant and where they were set', () => {
    const config = loadConfig(
      {
        PIPEWATCH_NOTICE_INTERVAL: '2m',
        PIPEWATCH_LOG_LEVEL: 'debug',
        pipewatch_api_url: 'https://api.example.com',
        SLACK_CHANNEL: '#gas',
      },
      '/',
    );
    expect(config.warnings).toEqual([
      'PIPEWATCH_LOG_LEVEL is not a pipewatch variable — did you mean LOG_LEVEL? (set in the environment)',
      'PIPEWATCH_NOTICE_INTERVAL is not a pipewatch variable — did you mean PIPEWATCH_NOTICES_INTERVAL? (set in the environment)',
      'SLACK_CHANNEL is not a pipewatch variable; it is ignored (set in the environment)',
      'pipewatch_api_url is not a pipewatch variable — did you mean PIPEWATCH_API_URL? (set in the environment)',
    ]);
  });

  it('leave alone the variables pipewatch has and names of other programs', () => {
    const config = loadConfig(
      {
        PIPEWATCH_NOTICES_INTERVAL: '2m',
        SLACK_BOT_TOKEN: 'xoxb-1-2',
        EMAIL_FROM: 'alerts@example.com',
        SMTP_URL: 'smtp://mail.example.com',
        NO_COLOR: '1',
        HOME: '/root',
        DISCORDANT: 'x',
      },
      '/',
    );
    expect(config.warnings).toEqual([]);
  });

  it('name the .env line, or both places when the environment sets it too', () => {
    const dir = dirWithDotEnv(
      '# pipewatch\nLOG_LEVEL=info\nPIPEWATCH_NOTICE_INTERVAL=2m\nexport DISCORD_TOKEN=abc\n',
    );
    const { env, sources } = readEnvironment({ DISCORD_TOKEN: 'abc' }, dir);
    expect(loadConfig(env, dir, sources).warnings).toEqual([
      'DISCORD_TOKEN is not a pipewatch variable — did you mean DISCORD_BOT_TOKEN? (set in the environment and .env line 4)',
      'PIPEWATCH_NOTICE_INTERVAL is not a pipewatch variable — did you mean PIPEWATCH_NOTICES_INTERVAL? (set in .env line 3)',
    ]);
  });

  it('follow the lines of a configuration error, which a typo often explains', () => {
    let lines: string[] = [];
    try {
      loadConfig({ PIPEWATCH_API_USER: 'me', PIPEWATCH_APIKEY: 'k' }, '/');
    } catch (error) {
      if (error instanceof ConfigError) lines = error.lines;
    }
    expect(lines).toEqual([
      'PIPEWATCH_API_KEY is missing: PIPEWATCH_API_USER and PIPEWATCH_API_KEY go together (example: PIPEWATCH_API_KEY=your-api-key)',
      'PIPEWATCH_APIKEY is not a pipewatch variable — did you mean PIPEWATCH_API_KEY? (set in the environment)',
    ]);
  });

  it('are logged once by a command, from the environment and from .env', async () => {
    const cwd = dirWithDotEnv('PIPEWATCH_CAPACITY_PIPELINE=transco\n');
    const run = await cli(['send-test', 'console'], { PIPEWATCH_NOTICE_INTERVAL: '2m' }, { cwd });
    expect(run.code, run.stderr).toBe(0);
    const warned = (text: string) => run.stderr.split(text).length - 1;
    expect(
      warned(
        'PIPEWATCH_NOTICE_INTERVAL is not a pipewatch variable — did you mean PIPEWATCH_NOTICES_INTERVAL? (set in the environment)',
      ),
    ).toBe(1);
    expect(
      warned(
        'PIPEWATCH_CAPACITY_PIPELINE is not a pipewatch variable — did you mean PIPEWATCH_CAPACITY_PIPELINES? (set in .env line 1)',
      ),
    ).toBe(1);
  });

  it('are warned about by a command that logs nothing else', async () => {
    const run = await cli(['status'], {
      PIPEWATCH_DATA_DIR: join(dirWithDotEnv(''), 'none'),
      PIPEWATCH_RULE_DIR: './rules',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'PIPEWATCH_RULE_DIR is not a pipewatch variable — did you mean PIPEWATCH_RULES_DIR? (set in the environment)',
    );
    expect(run.stderr).toMatch(/no database at /);
  });
});

describe('PIPEWATCH_API_URL ending in /api/v1', () => {
  it('stops a command with one line saying what to set instead, exit 2', async () => {
    const run = await cli(['send-test', 'console'], {
      PIPEWATCH_API_URL: 'https://api.example.com/api/v1/',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'pipewatch: PIPEWATCH_API_URL must not end in /api/v1: the client appends /api/v1 itself; got "https://api.example.com/api/v1/" (set PIPEWATCH_API_URL=https://api.example.com instead)\n',
    );
  });
});
