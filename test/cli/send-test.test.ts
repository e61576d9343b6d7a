/**
 * `pipewatch send-test` to a channel whose credentials are not set: a configuration
 * error (exit 2) naming what to set, not a failure to try again.
 */
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

describe('send-test without the channel credentials', () => {
  it.each([
    ['slack:#gas', 'slack is not configured; set SLACK_BOT_TOKEN'],
    ['slack_dm:U0123ABCD', 'slack_dm is not configured; set SLACK_BOT_TOKEN'],
    ['discord:123456789012345678', 'discord is not configured; set DISCORD_BOT_TOKEN'],
    ['email:ops@example.com', 'email is not configured; set SMTP_URL and EMAIL_FROM'],
  ])('%s names the variables to set, in one line, exit 2', async (target, problem) => {
    const run = await cli(['send-test', target], { LOG_LEVEL: 'error' });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`pipewatch: ${target}: ${problem}\n`);
    expect(run.stdout).toBe('');
  });

  it('sends to a channel that needs no credentials', async () => {
    const run = await cli(['send-test', 'console'], {});
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ALERT send-test → console: /m);
  });
});
