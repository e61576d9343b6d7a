/**
 * Delivery end to end: the simulator as the API, `pipewatch run --once` as a user runs
 * it, and the local fakes of Slack, Discord, an SMTP server and a webhook receiver as the
 * platforms. What a rule decides arrives exactly once on each; a refused target goes dead
 * with its reason without holding the others; no secret reaches the output or the logs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, simulatorDefaults } from '../../src/simulator/index.js';
import { type DiscordFake, FAKE_CHANNEL, startDiscordFake } from '../fakes/discord.js';
import { startSimulatedApi } from '../fakes/simulated-api.js';
import { FAKE_TOKEN as SLACK_TOKEN, type SlackFake, startSlackFake } from '../fakes/slack.js';
import { type SmtpFake, startSmtpFake } from '../fakes/smtp.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook.js';
import { InstantClock, ManualClock } from '../support/clock.js';
import { cli, startCli, until } from './run-cli.js';

const START = new Date('2026-11-20T15:00:00Z');
const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
const DISCORD_TOKEN = 'MTIzNDU2Nzg5.GhIjKl.discordSecretPart';
const WEBHOOK_SECRET = 'webhook-secret-of-some-length';

let sim: Simulator;
let slack: SlackFake;
let discord: DiscordFake;
let smtp: SmtpFake;
let hooks: WebhookReceiver;
let env: Record<string, string>;
const clock = () => new InstantClock(new Date(START.getTime() + 60_000));

function rules(): string {
  return `
rules:
  - name: transco-constraints
    notices:
      pipelines: [transco]
      types: [constraint]
    notify:
      - slack: "#gas"
      - discord: "${FAKE_CHANNEL}"
      - email: [scheduling@example.com]
      - webhook: ${hooks.url}/pipewatch
  - name: outside-channel
    notices:
      pipelines: [transco]
      types: [constraint]
    notify:
      - slack: "#outside"
`;
}

beforeAll(async () => {
  slack = await startSlackFake();
  discord = await startDiscordFake({ token: DISCORD_TOKEN });
  // A relay on loopback without STARTTLS, as SMTP_ALLOW_PLAINTEXT is for.
  smtp = await startSmtpFake({ starttls: false });
  hooks = await startWebhookReceiver({ secret: WEBHOOK_SECRET });
  ({ sim, env } = await startSimulatedApi({ seed: 7, start: START, rules: rules() }));
  env = {
    ...env,
    PIPEWATCH_CAPACITY_PIPELINES: 'transco',
    PIPEWATCH_WEBHOOK_SECRET: WEBHOOK_SECRET,
    SLACK_BOT_TOKEN: SLACK_TOKEN,
    SLACK_API_URL: slack.url,
    DISCORD_BOT_TOKEN: DISCORD_TOKEN,
    DISCORD_API_URL: discord.url,
    SMTP_URL: smtp.url,
    SMTP_ALLOW_PLAINTEXT: 'true',
    EMAIL_FROM: 'pipewatch <alerts@example.com>',
    LOG_LEVEL: 'debug',
  };
});
afterAll(async () => {
  await Promise.all([sim.close(), slack.close(), discord.close(), smtp.close(), hooks.close()]);
});

/**
 * The environment with a data directory of its own, where a first run has stored the
 * baseline: a test that needs what came before makes it itself, whatever ran before it.
 */
async function afterBaseline(): Promise<Record<string, string>> {
  const own = { ...env, PIPEWATCH_DATA_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-data-')) };
  const baseline = await cli(['run', '--once'], own, { clock: clock() });
  expect(baseline.code, baseline.stderr).toBe(0);
  return own;
}

describe('delivery end to end', () => {
  it('delivers a new constraint notice once to every platform; a refused target goes dead alone', async () => {
    const baseline = await cli(['run', '--once'], env, { clock: clock() });
    expect(baseline.code, baseline.stderr).toBe(0);
    expect(slack.posts).toHaveLength(0);

    const notice = sim.control.addNotice({
      pipeline_slug: 'transco',
      type: 'Capacity Constraint',
      subject: 'Capacity Constraint - Station 165 <!channel> @everyone',
      category: 'Critical',
      status: 'Initiate',
    });
    const run = await cli(['run', '--once'], env, { clock: clock() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /delivered: 4 alerts in 4 messages; 0 waiting for a retry, 1 failed for good/,
    );

    expect(slack.posts.map((p) => p.channel)).toEqual(['C0GAS']);
    expect(slack.posts[0]!.text).not.toContain('<!channel>');
    expect(discord.messages.map((m) => m.channel_id)).toEqual([FAKE_CHANNEL]);
    expect(discord.messages[0]!.allowed_mentions).toEqual({ parse: [] });
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.envelope.to).toEqual(['scheduling@example.com']);
    expect(smtp.messages[0]!.parsed?.subject).toMatch(/^\[Transco\] Capacity Constraint: /);
    expect(hooks.received).toHaveLength(1);
    expect(hooks.received[0]!.signatureValid).toBe(true);
    expect(JSON.parse(hooks.received[0]!.body)).toMatchObject({
      kind: 'notice',
      state: 'new',
      rule: 'transco-constraints',
      notice: { id: notice.id },
    });

    const status = await cli(['status'], env, { clock: clock() });
    expect(status.stdout).toMatch(/outbox: 0 pending, 4 sent, 1 dead/);
    expect(status.stdout).toMatch(/dead: 1 × slack: not_in_channel/);

    const why = await cli(['why', String(notice.id)], env);
    expect(why.stdout).toMatch(
      /outside-channel\|notice:\d+:v1\|slack:#outside: dead, 1 attempt, last error: slack: not_in_channel/,
    );
    expect(why.stdout).toMatch(
      /transco-constraints\|notice:\d+:v1\|slack:#gas: sent at \S+, 1 attempt, ok channel=C0GAS ts=/,
    );

    for (const output of [baseline, run, status]) {
      for (const secret of [SLACK_TOKEN, DISCORD_TOKEN, WEBHOOK_SECRET, smtp.pass, premium.key]) {
        expect(output.stdout + output.stderr).not.toContain(secret);
      }
    }
  });

  it('sends nothing on the next run', async () => {
    const own = await afterBaseline();
    sim.control.addNotice({
      pipeline_slug: 'transco',
      type: 'Capacity Constraint',
      subject: 'Capacity Constraint - Leidy Line',
      category: 'Critical',
      status: 'Initiate',
    });
    const first = await cli(['run', '--once'], own, { clock: clock() });
    expect(first.stdout).toMatch(/delivered: 4 alerts in 4 messages/);
    const before = {
      slack: slack.posts.length,
      discord: discord.messages.length,
      email: smtp.messages.length,
      hooks: hooks.received.length,
    };
    const again = await cli(['run', '--once'], own, { clock: clock() });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/delivered: 0 alerts in 0 messages/);
    expect({
      slack: slack.posts.length,
      discord: discord.messages.length,
      email: smtp.messages.length,
      hooks: hooks.received.length,
    }).toEqual(before);
  });

  it('run delivers a notice as soon as the sync that sees it has stored it, and stops cleanly', async () => {
    const own = await afterBaseline();
    const manual = new ManualClock(new Date(START.getTime() + 120_000));
    const stop = new AbortController();
    const before = hooks.received.length;
    const running = startCli(
      ['run'],
      { ...own, PIPEWATCH_HTTP_PORT: '0' },
      {
        clock: manual,
        signal: stop.signal,
      },
    );
    const notice = sim.control.addNotice({
      pipeline_slug: 'transco',
      type: 'Capacity Constraint',
      subject: 'Capacity Constraint - Station 210',
      category: 'Critical',
      status: 'Initiate',
    });
    // The daemon checks each platform's credentials before its feeds start.
    await until(() => /channel webhook|channel email/.test(running.stderr.text), running);
    // Then time moves only when told: a second at a time until the webhook has it.
    await until(() => {
      manual.advance(1_000);
      return hooks.received.length > before;
    }, running);
    expect(JSON.parse(hooks.received.at(-1)!.body).notice.id).toBe(notice.id);
    stop.abort();
    const result = await running.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/channel slack: slack: \S+ in \S+/);
    expect(result.stderr).toMatch(/channel discord: discord: pipewatch/);
    expect(result.stderr).toMatch(/channel email: email: 127\.0\.0\.1:\d+ as /);
    expect(result.stderr).not.toContain(SLACK_TOKEN);
    expect(result.stderr).not.toContain(smtp.pass);
  });

  it('refuses a rule change that sends to a channel without credentials; the rules in force stay', async () => {
    const rulesDir = mkdtempSync(join(tmpdir(), 'pipewatch-reload-'));
    const { DISCORD_BOT_TOKEN: _token, ...withoutDiscord } = env;
    const withoutDiscordRules = rules().replace(/ {6}- discord: .*\n/, '');
    writeFileSync(join(rulesDir, 'rules.yaml'), withoutDiscordRules);
    const stop = new AbortController();
    const running = startCli(
      ['run'],
      {
        ...withoutDiscord,
        // A database of its own: its first sync is a baseline, whatever others left to send.
        PIPEWATCH_DATA_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-data-')),
        PIPEWATCH_RULES_DIR: rulesDir,
        PIPEWATCH_HTTP_PORT: '0',
        LOG_LEVEL: 'info',
      },
      { clock: new ManualClock(new Date(START.getTime() + 120_000)), signal: stop.signal },
    );
    await until(() => /channel email/.test(running.stderr.text), running);
    writeFileSync(
      join(rulesDir, 'more.yaml'),
      `rules:\n  - name: to-discord\n    notices: {}\n    notify:\n      - discord: "${FAKE_CHANNEL}"\n`,
    );
    await until(() => /rule change rejected/.test(running.stderr.text), running);
    expect(running.stderr.text).toMatch(
      /more\.yaml:2:\d+: rule 'to-discord' sends to discord, but DISCORD_BOT_TOKEN is not set/,
    );
    expect(running.stderr.text).not.toMatch(/rules reloaded/);
    stop.abort();
    expect((await running.done).code).toBe(0);
  });

  it('refuses to start when a rule sends to a channel without credentials', async () => {
    const { SLACK_BOT_TOKEN: _token, ...withoutSlack } = env;
    const run = await cli(['run', '--once'], withoutSlack, { clock: clock() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /rules\.yaml:3:\d+: rule 'transco-constraints' sends to slack, but SLACK_BOT_TOKEN is not set/,
    );
    expect(run.stderr).toMatch(/rule 'outside-channel' sends to slack/);
  });

  it("refuses to start when the ops target's channel has no credentials", async () => {
    const { DISCORD_BOT_TOKEN: _token, ...withoutDiscord } = env;
    const run = await cli(
      ['run', '--once'],
      { ...withoutDiscord, PIPEWATCH_OPS_TARGET: 'discord:123456789012345678' },
      { clock: clock() },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^pipewatch: PIPEWATCH_OPS_TARGET sends to discord, but DISCORD_BOT_TOKEN is not set$/m,
    );
  });
});

describe('send-test', () => {
  it('sends a sample alert and prints what the platform answered', async () => {
    const before = slack.posts.length;
    const sent = await cli(['send-test', 'slack:#gas', '--kind', 'capacity'], env);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^slack:#gas: ok channel=C0GAS ts=\d+\.\d+$/m);
    expect(slack.posts.length).toBe(before + 1);
    expect(slack.posts.at(-1)?.text).toMatch(/Low OAC at STATION 85 \(TEST\)/);

    const mail = await cli(['send-test', 'email:ops@example.com'], env);
    expect(mail.code, mail.stderr).toBe(0);
    expect(mail.stdout).toMatch(/^email:ops@example\.com: ok </m);
  });

  it('says why the platform refused, and exits 1', async () => {
    const refused = await cli(['send-test', 'slack:#outside'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/slack:#outside: failed: slack: not_in_channel/);
    expect(refused.stderr + refused.stdout).not.toContain(SLACK_TOKEN);
  });

  it('rejects a target it cannot read, with the rule file message', async () => {
    const bad = await cli(['send-test', 'slak:#ops'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown kind 'slak'/);
    const badChannel = await cli(['send-test', 'slack:ops'], env);
    expect(badChannel.stderr).toMatch(/slack: must be a channel name such as '#gas-ops'/);
  });
});
