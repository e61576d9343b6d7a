/**
 * Each request from Slack acted on once, across restarts: a signed request captured and
 * sent again, to the same app or to one started afresh on the same database, gets 401
 * and changes nothing; an event Slack delivers again (a retry: new signature, same
 * `event_id`) is acknowledged with 200, so Slack stops, and passed to no listener; the
 * same over Socket Mode, where a redelivered event comes in a new envelope.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type SlackApp, startSlackApp } from '../../../src/frontends/slack/app.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { toUtcIso } from '../../../src/lib/time.js';
import { asyncStoreOf } from '../../../src/store/async-sqlite.js';
import { FAKE_APP_TOKEN, type SlackFake, startSlackFake } from '../../fakes/slack.js';
import { blockActions, slackEvents, slashCommand } from '../../fakes/slack-payloads.js';
import { type CoreUnderTest, startChatCore } from '../../support/chat-core.js';
import { ManualClock } from '../../support/clock.js';
import {
  type AppUnderTest,
  type AppUnderTestOptions,
  NOW,
  postedAlert,
  SIGNING_SECRET,
  startAppUnderTest,
} from './app-setup.js';

let t: AppUnderTest | undefined;
let socket: { app: SlackApp; fake: SlackFake; chat: CoreUnderTest } | undefined;

afterEach(async () => {
  await t?.close();
  if (socket) {
    await socket.app.close();
    await socket.fake.close();
    socket.chat.close();
  }
  t = socket = undefined;
});

/** Starts the app under test, closed after the test. */
async function start(options?: AppUnderTestOptions): Promise<AppUnderTest> {
  t = await startAppUnderTest(options);
  return t;
}

/** Stops the app under test and starts another on the same database, as a restart does. */
async function restart(u: AppUnderTest): Promise<void> {
  await u.app.close();
  u.app = await startSlackApp({
    token: u.fake.token,
    signingSecret: SIGNING_SECRET,
    apiUrl: u.fake.url,
    chat: u.core,
    clock: u.clock,
    logger: u.logger,
    replays: asyncStoreOf(u.store).interactions,
    timeoutMs: 5000,
  });
}

describe('a signed request sent again', () => {
  it('is refused with 401 after a restart, and the subscription is made once', async () => {
    const u = await start();
    const first = await u.send.command(slashCommand(u.fake, { text: 'subscribe transco' }));
    expect(first.status).toBe(200);
    expect(u.store.subscriptions.all()).toHaveLength(1);
    await restart(u);
    u.clock.advance(10_000);
    const again = await u.send.send(first.request);
    expect(again.status).toBe(401);
    expect(again.body).toBe('the request was already received (replayed)\n');
    expect(u.store.subscriptions.all()).toHaveLength(1);
    // Another command, signed anew, is taken by the restarted app.
    const other = await u.send.command(slashCommand(u.fake, { text: 'mute transco for 4h' }));
    expect(other.status).toBe(200);
    expect(u.store.silences.active(toUtcIso(u.clock.now()))).toHaveLength(1);
  });

  it('is remembered for ten minutes, longer than its timestamp is accepted', async () => {
    const u = await start();
    // Signed at the far end of the window: 4 min 50 s ahead of the app's clock.
    const ahead = Math.floor(u.clock.now().getTime() / 1000) + 290;
    const first = await u.send.command(slashCommand(u.fake, { text: 'subscribe transco' }), {
      timestamp: ahead,
    });
    expect(first.status).toBe(200);
    u.clock.advance(9 * 60_000);
    const again = await u.send.send(first.request);
    expect(again.status).toBe(401);
    expect(again.body).toContain('replayed');
    u.clock.advance(60_000 + 1000);
    expect((await u.send.send(first.request)).body).toContain('more than 5 minutes from now');
    expect(u.store.subscriptions.all()).toHaveLength(1);
  });

  it('a database that cannot say whether it was seen: nothing done, the caller told, logged', async () => {
    const u = await start({
      app: {
        replays: {
          firstTime: () => {
            throw new Error('database is locked');
          },
        },
      },
    });
    const res = await u.send.command(slashCommand(u.fake, { text: 'subscribe transco' }));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({
      response_type: 'ephemeral',
      text: 'pipewatch could not do that just now; the error is in its log.',
    });
    expect(u.store.subscriptions.all()).toEqual([]);
    expect(u.lines.some((l) => l.includes('so it is not acted on: database is locked'))).toBe(true);
    // A click: acknowledged, its clicker told, the alert left as it was.
    const message = await postedAlert(u);
    const click = blockActions(u.fake, { source: { message }, actionId: 'pipewatch_ack' });
    expect((await u.send.interactive(click)).status).toBe(200);
    await expect.poll(() => u.fake.responses.length).toBe(1);
    expect(u.fake.responses[0]!.body).toMatchObject({
      response_type: 'ephemeral',
      text: 'pipewatch could not do that just now; the error is in its log.',
    });
    expect(u.fake.updates).toEqual([]);
    // An event is acted on all the same: twice is better than never.
    expect((await u.send.event(slackEvents.appHomeOpened(u.fake, 'U0ALICE'))).status).toBe(200);
    await expect.poll(() => u.fake.publishes.length).toBe(1);
  });
});

describe('an event delivered again (a retry)', () => {
  it('is acknowledged with 200 and not acted on again, after a restart too', async () => {
    const u = await start();
    const opened = slackEvents.appHomeOpened(u.fake, 'U0ALICE');
    expect((await u.send.event(opened)).status).toBe(200);
    await expect.poll(() => u.fake.publishes.length).toBe(1);
    u.clock.advance(3000);
    const retry = await u.send.event(opened, { retry: { num: 1, reason: 'http_timeout' } });
    expect(retry.status).toBe(200);
    expect(retry.body).toBe('');
    await restart(u);
    u.clock.advance(60_000);
    const later = await u.send.event(opened, { retry: { num: 2, reason: 'http_timeout' } });
    expect(later.status).toBe(200);
    // An event heard after them shows they were passed over.
    expect((await u.send.event(slackEvents.appHomeOpened(u.fake, 'U0ALICE'))).status).toBe(200);
    await expect.poll(() => u.fake.publishes.length).toBe(2);
    expect(u.lines.filter((l) => l.includes('(a retry): acknowledged'))).toHaveLength(2);
  });

  it('over Socket Mode is acknowledged and not acted on again', async () => {
    const fake = await startSlackFake();
    const clock = new ManualClock(NOW);
    const chat = startChatCore({ clock });
    const app = await startSlackApp({
      token: fake.token,
      appToken: FAKE_APP_TOKEN,
      apiUrl: fake.url,
      chat: chat.core,
      clock,
      logger: silentLogger,
      replays: asyncStoreOf(chat.store).interactions,
    });
    socket = { app, fake, chat };
    await fake.socket.connected(1);
    const opened = slackEvents.appHomeOpened(fake, 'U0ALICE');
    await fake.socket.event(opened);
    await expect.poll(() => fake.publishes.length).toBe(1);
    const redelivered = await fake.socket.event(opened, {
      retry: { attempt: 1, reason: 'timeout' },
    });
    expect(redelivered.envelope_id).toBeTruthy();
    await fake.socket.event(slackEvents.appHomeOpened(fake, 'U0ALICE'));
    await expect.poll(() => fake.publishes.length).toBe(2);
    expect(fake.publishes).toHaveLength(2);
  });
});
