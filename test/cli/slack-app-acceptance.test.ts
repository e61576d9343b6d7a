/**
 * The Slack app as an operator runs it: `pipewatch run` as a process of its own, the
 * simulator as the API and the fake Slack as Slack, which sends requests signed as Slack
 * signs them (HTTP mode) or speaks Socket Mode. A channel subscribes from Slack, the
 * subscription's alert arrives with buttons, and Acknowledge on that message, clicked
 * after a restart, edits it for everyone; a forged request changes nothing. A story runs
 * pipewatch up to four times, seconds of CPU each: its bound is for a hang, as every step
 * waits on what a process or the fake says.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { subjectAfter } from '../../src/channels/text.js';
import {
  type DaemonProcess,
  STEP_HANG_MS,
  STORY_HANG_MS,
  startDaemon,
} from '../fakes/daemon-process.js';
import { type SimulatedApi, startSimulatedApi } from '../fakes/simulated-api.js';
import { FAKE_APP_TOKEN, FAKE_TOKEN, type SlackFake, startSlackFake } from '../fakes/slack.js';
import { blockActions, slashCommand } from '../fakes/slack-payloads.js';
import { slackRequestSender } from '../fakes/slack-requests.js';
import { addTranscoConstraint, stopCleanly } from './daemon-steps.js';
import { cli } from './run-cli.js';
import { readStore } from './subscription-fixture.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5'.replace(/[yz]/g, 'e');
const WITHIN_MS = STEP_HANG_MS;

let api: SimulatedApi;
let slack: SlackFake;
const running: DaemonProcess[] = [];

beforeAll(async () => {
  slack = await startSlackFake();
  api = await startSimulatedApi({
    seed: 43,
    start: new Date(Math.floor(Date.now() / 1000) * 1000),
    rules: 'rules: []\n',
  });
}, STEP_HANG_MS);
afterEach(() => {
  for (const d of running.splice(0)) d.kill();
});
afterAll(async () => {
  await Promise.all([api.sim.close(), slack.close()]);
});

function daemon(env: Record<string, string>): DaemonProcess {
  const d = startDaemon(env);
  running.push(d);
  return d;
}

/** The subscriptions the daemons stored. */
const subscriptions = () => readStore(api.dataDir, (s) => s.subscriptions.all());

const slackEnv = () => ({
  ...api.env,
  SLACK_BOT_TOKEN: FAKE_TOKEN,
  SLACK_API_URL: slack.url,
});

describe('the Slack app, in the daemon', { timeout: STORY_HANG_MS }, () => {
  it('over HTTP: subscribe from a channel, get the alert with buttons, acknowledge it after a restart', async () => {
    const env = { ...slackEnv(), SLACK_SIGNING_SECRET: SECRET };
    const baseline = await cli(['run', '--once'], env);
    expect(baseline.code, baseline.stderr).toBe(0);

    const first = daemon(env);
    const send = slackRequestSender({
      url: `${await first.http}/slack/events`,
      signingSecret: SECRET,
    });

    // A forged request, and one with a typo: answered, nothing stored.
    const forged = await send.command(slashCommand(slack, { text: 'subscribe transco' }), {
      secret: 'not-the-secret',
    });
    expect(forged.status).toBe(401);
    const typo = await send.command(
      slashCommand(slack, { text: 'subscribe trnsco type:constraint' }),
    );
    expect(typo.status).toBe(200);
    expect(JSON.parse(typo.body)).toMatchObject({ response_type: 'ephemeral' });
    expect(typo.body).toContain('transco');
    expect(subscriptions()).toEqual([]);

    const made = await send.command(
      slashCommand(slack, { text: 'subscribe transco type:constraint' }),
    );
    expect(made.status).toBe(200);
    expect(JSON.parse(made.body)).toMatchObject({ response_type: 'in_channel' });
    expect(made.body).toMatch(/subscribed this channel: transco; type constraint/);
    await slack.until('the follow-up', () => slack.responses.length > 0, WITHIN_MS);
    expect(JSON.stringify(slack.responses[0]!.body)).toMatch(
      /In the last 24 h it would have matched/,
    );
    expect(subscriptions().map((s) => [s.target, s.channel, s.created_by])).toEqual([
      ['slack:C0GAS', 'slack:C0GAS', 'U0ALICE'],
    ]);
    await stopCleanly(first);

    // A constraint arrives; a run --once (no chat) delivers it to the subscribed channel.
    const notice = addTranscoConstraint(api);
    const once = await cli(['run', '--once'], env);
    expect(once.code, once.stderr).toBe(0);
    const alert = slack.posts.find((p) =>
      p.text.includes(subjectAfter(notice.type, notice.subject)),
    );
    expect(alert?.channel).toBe('C0GAS');
    expect(JSON.stringify(alert!.blocks)).toContain('pipewatch_ack');

    // A new daemon: the button on the old message still works.
    const second = daemon(env);
    const click = blockActions(slack, {
      source: { message: { channel: 'C0GAS', ts: alert!.ts } },
      actionId: 'pipewatch_ack',
      user: 'W0BOB',
    });
    const again = slackRequestSender({
      url: `${await second.http}/slack/events`,
      signingSecret: SECRET,
    });
    expect((await again.interactive(click)).status).toBe(200);
    await slack.until(
      'the acknowledged message',
      () => JSON.stringify(slack.message('C0GAS', alert!.ts)?.blocks).includes('Acknowledged by'),
      WITHIN_MS,
    );
    const edited = JSON.stringify(slack.message('C0GAS', alert!.ts)!.blocks);
    expect(edited).toContain('<@W0BOB>');
    expect(edited).not.toContain('pipewatch_ack');
    await stopCleanly(second);
  });

  it('over Socket Mode: no public URL, the same commands', async () => {
    const env = { ...slackEnv(), SLACK_APP_TOKEN: FAKE_APP_TOKEN };
    const d = daemon(env);
    await slack.socket.connected(slack.socket.connections.length + 1, WITHIN_MS);
    const made = await slack.socket.command(
      slashCommand(slack, { text: 'subscribe texas-eastern', channel: 'C0OPS' }),
      WITHIN_MS,
    );
    expect(made.payload, JSON.stringify(made.payload)).toMatchObject({
      response_type: 'in_channel',
    });
    const list = await slack.socket.command(
      slashCommand(slack, { text: 'list', channel: 'C0OPS' }),
      WITHIN_MS,
    );
    expect(JSON.stringify(list.payload)).toContain('texas-eastern · by U0ALICE');
    const typo = await slack.socket.command(
      slashCommand(slack, { text: 'subscirbe texas-eastern' }),
      WITHIN_MS,
    );
    expect(JSON.stringify(typo.payload)).toMatch(/did you mean .subscribe/i);
    expect(subscriptions().filter((s) => s.channel === 'slack:C0OPS')).toHaveLength(1);
    await stopCleanly(d);
  });
});
