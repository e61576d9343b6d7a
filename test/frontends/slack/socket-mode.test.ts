/**
 * The Slack app over Socket Mode, on the real chat core: with an app-level token it opens
 * its connection through `apps.connections.open` at `apiUrl` (not Slack's own), takes a
 * command from the socket and acknowledges it there with the reply; a refused token or
 * an unreachable Slack stops start-up with one line naming what to check.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type SlackApp, startSlackApp } from '../../../src/frontends/slack/app.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { asyncStoreOf } from '../../../src/store/async-sqlite.js';
import { FAKE_APP_TOKEN, type SlackFake, startSlackFake } from '../../fakes/slack.js';
import { slashCommand } from '../../fakes/slack-payloads.js';
import { type CoreUnderTest, startChatCore } from '../../support/chat-core.js';
import { ManualClock } from '../../support/clock.js';
import { NOW, SIGNING_SECRET } from './app-setup.js';

let fake: SlackFake | undefined;
let app: SlackApp | undefined;
let chat: CoreUnderTest | undefined;

afterEach(async () => {
  await app?.close();
  await fake?.close();
  chat?.close();
  app = fake = chat = undefined;
});

/** The fake and the core, and the app starting against them with `options`. */
async function start(options: { appToken?: string; token?: string; signingSecret?: string }) {
  fake = await startSlackFake();
  const clock = new ManualClock(NOW);
  chat = startChatCore({ clock });
  const started = startSlackApp({
    token: options.token ?? fake.token,
    appToken: options.appToken,
    signingSecret: options.signingSecret,
    apiUrl: fake.url,
    chat: chat.core,
    clock,
    logger: silentLogger,
    replays: asyncStoreOf(chat.store).interactions,
  });
  return { fake, chat, started };
}

/** The `apps.connections.open` calls the fake answered, and how. */
const opened = (f: SlackFake) =>
  f.calls.filter((c) => c.method === 'apps.connections.open').map((c) => c.error ?? c.status);

describe('Socket Mode', () => {
  it('connects through apiUrl with the app token and acknowledges a command with its reply', async () => {
    const { fake, chat, started } = await start({ appToken: FAKE_APP_TOKEN });
    app = await started;
    expect(app.mode).toBe('socket');
    expect(app.handleHttp).toBeUndefined();
    await fake.socket.connected(1);
    expect(opened(fake)).toEqual([200]);
    const ack = await fake.socket.command(
      slashCommand(fake, { text: 'subscribe transco text:"&lt;all&gt;"' }),
    );
    expect(ack.payload).toMatchObject({
      response_type: 'in_channel',
      text: expect.stringMatching(/^alice subscribed this channel: transco; .*&lt;all&gt;/),
    });
    const [made] = chat.store.subscriptions.all();
    expect(made).toMatchObject({ channel: 'slack:C0GAS', created_by: 'U0ALICE' });
    expect(JSON.stringify(made!.rule)).toContain('<all>');
  });

  it('refuses to start with an app token Slack refuses, naming SLACK_APP_TOKEN', async () => {
    const { fake, started } = await start({ appToken: 'xapp-1-A0PIPEWATCH-1234-revoked' });
    await expect(started).rejects.toThrow(
      'the Slack app could not connect: slack: invalid_auth (apps.connections.open); check SLACK_APP_TOKEN',
    );
    expect(opened(fake)).toEqual(['invalid_auth']);
  });

  it('refuses to start with a bot token Slack refuses, naming SLACK_BOT_TOKEN', async () => {
    const { started } = await start({ token: 'xoxb-0000-revoked', signingSecret: SIGNING_SECRET });
    await expect(started).rejects.toThrow(
      'the Slack app could not start: slack: invalid_auth (auth.test); check SLACK_BOT_TOKEN',
    );
  });

  it('says to check the way to Slack when it cannot reach it', async () => {
    const clock = new ManualClock(NOW);
    chat = startChatCore({ clock });
    const started = startSlackApp({
      token: 'xoxb-0000-fine',
      appToken: 'xapp-1-A0PIPEWATCH-1234-fine',
      apiUrl: 'http://127.0.0.1:9/api/',
      chat: chat.core,
      clock,
      logger: silentLogger,
      replays: asyncStoreOf(chat.store).interactions,
    });
    await expect(started).rejects.toThrow(
      /^the Slack app could not start: slack: network error \w+ \(auth\.test\); check the network and SLACK_API_URL$/,
    );
  });

  it('needs a signing secret without an app token', async () => {
    const clock = new ManualClock(NOW);
    chat = startChatCore({ clock });
    await expect(
      startSlackApp({
        token: 'xoxb-1',
        chat: chat.core,
        clock,
        logger: silentLogger,
        replays: asyncStoreOf(chat.store).interactions,
      }),
    ).rejects.toThrow('SLACK_SIGNING_SECRET is required');
  });
});
