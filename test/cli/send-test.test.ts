/**
 * `pipewatch send-test` to a channel whose credentials are not set: a configuration
 * error (exit 2) naming what to set, not a failure to try again. A target as people type
 * it: a kind alone is told what it needs, a kind in capitals is taken.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type PagerDutyFake, startPagerDutyFake } from '../fakes/pagerduty.js';
import { startTeamsWorkflow, type TeamsWorkflow, workflowError } from '../fakes/teams.js';
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

describe('send-test with a target as people type it', () => {
  it.each([
    ['slack', 'slack needs a channel: slack:#ops or slack:C0123ABCD'],
    ['slack_dm', 'slack_dm needs a user: slack_dm:U0123ABCD or slack_dm:ops@example.com'],
    ['discord', 'discord needs a channel id: discord:123456789012345678'],
    ['discord-dm', 'discord_dm needs a user id: discord_dm:123456789012345678'],
    ['email', 'email needs an address: email:ops@example.com (or several, comma-separated)'],
    ['webhook', 'webhook needs a URL: webhook:https://hooks.example.com/…'],
    ['pagerduty', 'pagerduty needs an integration key: pagerduty:<32-character Events API v2 key>'],
    ['#ops', "'#ops' has no kind: write slack:#ops"],
    ['slak:#ops', "unknown kind 'slak' (did you mean 'slack'?); write kind:value with one of"],
  ])('%s says what it needs, exit 2', async (target, problem) => {
    const run = await cli(['send-test', target], { LOG_LEVEL: 'error' });
    expect(run.code).toBe(2);
    expect(run.stderr.startsWith(`pipewatch: ${problem}`), run.stderr).toBe(true);
    expect(run.stderr).not.toContain("unknown kind 'slack");
    expect(run.stdout).toBe('');
  });

  it('takes a kind in any letter case', async () => {
    const run = await cli(['send-test', 'Slack:#gas'], { LOG_LEVEL: 'error' });
    expect(run.stderr).toBe(
      'pipewatch: slack:#gas: slack is not configured; set SLACK_BOT_TOKEN\n',
    );
    expect((await cli(['send-test', 'CONSOLE'], {})).code).toBe(0);
  });
});

describe('send-test to a Teams workflow', () => {
  let workflow: TeamsWorkflow;
  beforeEach(async () => {
    workflow = await startTeamsWorkflow();
  });
  afterEach(() => workflow.close());

  it('posts a sample card the workflow accepts, naming the workflow by host only', async () => {
    const run = await cli(['send-test', `teams:${workflow.url}`, '--kind', 'capacity'], {
      LOG_LEVEL: 'debug',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`teams:${workflow.origin}/…: ok HTTP 202 teams:${workflow.origin}/…\n`);
    expect(workflow.received).toHaveLength(1);
    expect(workflow.received[0]?.card.body[0]?.text).toMatch(/Low OAC/);
    expect(run.stdout + run.stderr).not.toContain(workflow.sig);
  });

  it("says why the workflow refused, in Teams' words, exit 1", async () => {
    workflow.fail(400, { body: workflowError('InvalidRequestContent', 'The card is not valid.') });
    const run = await cli(['send-test', `teams:${workflow.url}`], { LOG_LEVEL: 'debug' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `teams:${workflow.origin}/…: failed: teams: HTTP 400 InvalidRequestContent: The card is not valid. (teams:${workflow.origin}/…)\n`,
    );
    expect(run.stdout + run.stderr).not.toContain(workflow.sig);
  });
});

describe('send-test to PagerDuty', () => {
  const key = 'R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b';
  let fake: PagerDutyFake;
  beforeEach(async () => {
    fake = await startPagerDutyFake();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('triggers a sample event and says what PagerDuty answered, never the key', async () => {
    const run = await cli(['send-test', `pagerduty:${key}`], {
      PAGERDUTY_API_URL: fake.url,
      LOG_LEVEL: 'debug',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^pagerduty:…9a1b: ok HTTP 202 trigger pipewatch\/notice\/transco\/\d+\n$/,
    );
    expect(fake.events).toMatchObject([
      { routing_key: key, event_action: 'trigger', payload: { severity: 'error' } },
    ]);
    expect(`${run.stdout}${run.stderr}`).not.toContain(key);
  });

  it("a refused event fails with PagerDuty's reason, exit 1", async () => {
    fake.fail(429);
    const run = await cli(['send-test', `pagerduty:${key}`], { PAGERDUTY_API_URL: fake.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'pagerduty:…9a1b: failed: pagerduty: HTTP 429 rate limited (pagerduty:…9a1b) (temporary: try again)\n',
    );
  });
});
