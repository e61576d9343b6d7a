/**
 * The Slack app over Socket Mode: with an app-level token it opens its connection through
 * `apps.connections.open` at `apiUrl` (not Slack's own), takes a command from the
 * socket and acknowledges it there with the reply; a refused app token stops start-up
 * with one line naming the variable.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type SlackApp, startSlackApp } from '../../../src/channels/slack/app.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { type SlackFake, startSlackFake } from '../../fakes/slack.js';
import { ManualClock } from '../../support/clock.js';
import { ChatStandIn } from './chat-stand-in.js';
import { type SocketLink, startSocketLink } from './socket-link.js';

const APP_TOKEN = 'xapp-1-A0PIPEWATCH-1234-0a1b2c3d4e5f';

let fake: SlackFake | undefined;
let link: SocketLink | undefined;
let app: SlackApp | undefined;

afterEach(async () => {
  await app?.close();
  await link?.close();
  await fake?.close();
  app = link = fake = undefined;
});

async function start(appToken: string) {
  fake = await startSlackFake();
  link = await startSocketLink(APP_TOKEN, fake.url);
  const clock = new ManualClock('2026-11-20T15:00:00Z');
  const chat = new ChatStandIn(clock);
  const started = startSlackApp({
    token: fake.token,
    appToken,
    apiUrl: link.apiUrl,
    chat,
    clock,
    logger: silentLogger,
  });
  return { chat, started };
}

describe('Socket Mode', () => {
  it('connects through apiUrl with the app token and acknowledges a command with its reply', async () => {
    const { chat, started } = await start(APP_TOKEN);
    app = await started;
    expect(app.mode).toBe('socket');
    expect(app.handleHttp).toBeUndefined();
    expect(link!.opened).toEqual([`Bearer ${APP_TOKEN}`]);
    link!.send({
      envelope_id: 'env-1',
      type: 'slash_commands',
      accepts_response_payload: true,
      payload: {
        team_id: 'T0ACME',
        channel_id: 'C0GAS',
        channel_name: 'gas',
        user_id: 'U0ALICE',
        user_name: 'alice',
        command: '/pipewatch',
        text: 'list &lt;all&gt;',
        response_url: 'http://127.0.0.1:9/respond',
        trigger_id: '1.2.3',
        api_app_id: 'A0PIPEWATCH',
      },
    });
    const ack = await link!.ack('env-1');
    expect(ack).toMatchObject({
      envelope_id: 'env-1',
      payload: { response_type: 'ephemeral', text: 'You said: list &lt;all&gt;' },
    });
    expect(chat.calls).toMatchObject([{ method: 'command', text: 'list <all>' }]);
  });

  it('refuses to start with an app token Slack refuses, naming SLACK_APP_TOKEN', async () => {
    const { started } = await start('xapp-1-A0PIPEWATCH-1234-revoked');
    await expect(started).rejects.toThrow(
      'the Slack app could not connect: slack: invalid_auth (apps.connections.open); check SLACK_APP_TOKEN',
    );
    expect(link!.opened).toEqual(['Bearer xapp-1-A0PIPEWATCH-1234-revoked']);
  });

  it('refuses to start with a bot token Slack refuses, naming SLACK_BOT_TOKEN', async () => {
    fake = await startSlackFake();
    const clock = new ManualClock();
    const started = startSlackApp({
      token: 'xoxb-0000-revoked',
      signingSecret: '3f1c9a7be05d4c2f8a6b1e9d7c3a5f20',
      apiUrl: fake.url,
      chat: new ChatStandIn(clock),
      clock,
      logger: silentLogger,
    });
    await expect(started).rejects.toThrow(
      'the Slack app could not start: slack: invalid_auth (auth.test); check SLACK_BOT_TOKEN',
    );
  });

  it('says to check the way to Slack when it cannot reach it', async () => {
    const clock = new ManualClock();
    const started = startSlackApp({
      token: 'xoxb-0000-fine',
      appToken: APP_TOKEN,
      apiUrl: 'http://127.0.0.1:9/api/',
      chat: new ChatStandIn(clock),
      clock,
      logger: silentLogger,
    });
    await expect(started).rejects.toThrow(
      /^the Slack app could not start: slack: network error \w+ \(auth\.test\); check the network and SLACK_API_URL$/,
    );
  });

  it('needs a signing secret without an app token', async () => {
    const clock = new ManualClock();
    await expect(
      startSlackApp({ token: 'xoxb-1', chat: new ChatStandIn(clock), clock, logger: silentLogger }),
    ).rejects.toThrow('SLACK_SIGNING_SECRET is required');
  });
});
