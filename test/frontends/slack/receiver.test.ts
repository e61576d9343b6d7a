/**
 * Requests to `POST /slack/events` on the daemon's server: only what Slack signed, at the
 * time it says, once, within the size limit, reaches the app; everything else is refused
 * before it is read (401 or 413) and the chat core stores nothing. And every request
 * gets its answer in time, even from a listener that never acknowledges.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App } from '@slack/bolt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeAction } from '../../../src/channels/slack/actions.js';
import { clientLogger } from '../../../src/channels/slack/client-log.js';
import { SlackHttpReceiver } from '../../../src/frontends/slack/receiver.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { toUtcIso } from '../../../src/lib/time.js';
import { asyncStoreOf } from '../../../src/store/async-sqlite.js';
import { startSlackFake } from '../../fakes/slack.js';
import { blockActions, slashCommand, urlVerification } from '../../fakes/slack-payloads.js';
import { slackRequestSender } from '../../fakes/slack-requests.js';
import { ManualClock } from '../../support/clock.js';
import { useTempStore } from '../../support/temp-store.js';
import {
  type AppUnderTest,
  NOW,
  postedAlert,
  SIGNING_SECRET,
  startAppUnderTest,
} from './app-setup.js';

let t: AppUnderTest;
const temp = useTempStore('pipewatch-receiver-');

afterEach(async () => {
  await t?.close();
});

/** `/pipewatch <text>` typed by U0ALICE in #gas. */
const typed = (text: string) => slashCommand(t.fake, { text });

/** Nothing was stored and nothing followed up: the core never heard of the request. */
function nothingDone(): void {
  expect(t.store.subscriptions.all()).toEqual([]);
  expect(t.store.silences.active(NOW)).toEqual([]);
  expect(t.fake.responses).toEqual([]);
}

describe('POST /slack/events', () => {
  it('answers a signed slash command with the reply as its body', async () => {
    t = await startAppUnderTest();
    const res = await t.send.command(typed('list'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const body = JSON.parse(res.body);
    const said = '0 subscriptions here, 0 reminders of yours, 0 silences in force.';
    expect(body).toMatchObject({ response_type: 'ephemeral', text: said });
    expect(body.blocks[0]).toMatchObject({ type: 'section' });
    expect(JSON.stringify(body.blocks)).toContain('Subscriptions of this channel');
  });

  it('answers url_verification with its challenge', async () => {
    t = await startAppUnderTest();
    const res = await t.send.event(
      urlVerification('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P'),
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    });
  });

  it('refuses a request signed with another secret: 401, nothing done', async () => {
    t = await startAppUnderTest();
    const res = await t.send.command(typed('subscribe transco'), { secret: 'f'.repeat(32) });
    expect(res.status).toBe(401);
    expect(res.body).toBe('the signature does not match the body\n');
    nothingDone();
    expect(t.lines.some((l) => l.includes('refused a request to /slack/events'))).toBe(true);
  });

  it('logs a flood of forged requests a line a minute, each counting those left out, and closes each connection', async () => {
    t = await startAppUnderTest();
    const forged = { secret: 'f'.repeat(32) };
    const refusals = () => t.lines.filter((l) => l.includes('refused a request to /slack/events'));
    for (let i = 0; i < 30; i++) {
      const res = await t.send.command(typed(`subscribe transco ${i}`), forged);
      expect(res.status).toBe(401);
      expect(res.headers.connection).toBe('close');
    }
    expect(refusals()).toHaveLength(1);
    t.clock.advance(60_000);
    await t.send.command(typed('subscribe transco'), forged);
    expect(refusals()).toHaveLength(2);
    expect(refusals()[1]).toContain('(29 more requests refused 401 since the last line)');
    nothingDone();
  });

  it('refuses a request without a signature', async () => {
    t = await startAppUnderTest();
    const res = await t.send.command(typed('subscribe transco'), {
      headers: { 'x-slack-signature': undefined },
    });
    expect(res.status).toBe(401);
    nothingDone();
  });

  it('refuses a timestamp more than 5 minutes from the clock, either way', async () => {
    t = await startAppUnderTest();
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const stale = await t.send.command(typed('subscribe transco'), { timestamp: now - 301 });
    expect(stale.status).toBe(401);
    expect(stale.body).toContain('more than 5 minutes from now');
    const ahead = await t.send.command(typed('subscribe transco'), { timestamp: now + 301 });
    expect(ahead.status).toBe(401);
    nothingDone();
    const edge = await t.send.command(typed('subscribe transco'), { timestamp: now - 300 });
    expect(edge.status).toBe(200);
    expect(t.store.subscriptions.all()).toHaveLength(1);
  });

  it('judges the timestamp by the clock it was given', async () => {
    t = await startAppUnderTest();
    const signed = t.send.build.command(typed('subscribe transco'));
    t.clock.advance(5 * 60_000 + 1000);
    expect((await t.send.send(signed)).status).toBe(401);
    nothingDone();
  });

  it('refuses a request it has already accepted (a replay), within the window', async () => {
    t = await startAppUnderTest();
    const first = await t.send.command(typed('mute transco for 4h'));
    expect(first.status).toBe(200);
    t.clock.advance(60_000);
    const again = await t.send.send(first.request);
    expect(again.status).toBe(401);
    expect(again.body).toContain('replayed');
    expect(t.store.silences.active(toUtcIso(t.clock.now()))).toHaveLength(1);
  });

  it('refuses a body changed after it was signed', async () => {
    t = await startAppUnderTest();
    const res = await t.send.command(typed('list'), {
      alterBody: (body) => body.replace('text=list', 'text=subscribe+transco'),
    });
    expect(res.request.body).toContain('text=subscribe+transco');
    expect(res.status).toBe(401);
    nothingDone();
  });

  it('refuses a body larger than the limit with 413, unread', async () => {
    t = await startAppUnderTest({ app: { bodyLimit: 4096 } });
    const big = await t.send.command(typed('subscribe transco'), { padTo: 8192 });
    expect(big.status).toBe(413);
    nothingDone();
    // The same request without a declared length is cut off at the limit too.
    const chunked = await t.send.command(typed('subscribe transco'), {
      padTo: 8192,
      chunked: true,
    });
    expect(chunked.request.chunked).toBe(true);
    expect(chunked.status).toBe(413);
    nothingDone();
  });

  it('answers 405 to any other method on the Slack URL', async () => {
    t = await startAppUnderTest();
    const res = await fetch(t.events);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('answers a request no listener takes (a link button) with 200 at once', async () => {
    t = await startAppUnderTest();
    const message = await postedAlert(t);
    const res = await t.send.interactive(
      blockActions(t.fake, { source: { message }, actionId: 'open_notice' }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
    // A click heard after it shows it was passed over: the only answer is to that one.
    const { value } = encodeAction({ kind: 'mute', pipeline: 'transco', forMs: 3_600_000 });
    await t.send.interactive(
      blockActions(t.fake, { source: { message }, actionId: 'pipewatch_mute', value }),
    );
    await expect.poll(() => t.fake.responses.length).toBeGreaterThan(0);
    expect(t.fake.responses.map((r) => r.body?.text)).toEqual([
      expect.stringMatching(/^alice muted transco/),
    ]);
    expect(t.fake.updates).toEqual([]);
  });
});

describe('a listener that never acknowledges', () => {
  it('still gets its request answered with 200, empty, after 2.5 s of the clock', async () => {
    const clock = new ManualClock(NOW);
    const fake = await startSlackFake({ clock });
    const receiver = new SlackHttpReceiver({
      signingSecret: SIGNING_SECRET,
      clock,
      logger: silentLogger,
      replays: asyncStoreOf(temp.store).interactions,
    });
    const app = new App({
      token: fake.token,
      botId: 'B0BOT',
      botUserId: 'U0BOT',
      receiver,
      logger: clientLogger(silentLogger, fake.token),
      convoStore: false,
    });
    const neverAnswers = () => new Promise<void>(() => undefined);
    app.command('/pipewatch', neverAnswers);
    await app.start();
    const server = createServer((req, res) => void receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const send = slackRequestSender({
      url: `http://127.0.0.1:${port}/slack/events`,
      signingSecret: SIGNING_SECRET,
      clock,
    });
    try {
      let settled = false;
      const answer = send.command(slashCommand(fake, { text: 'list' })).finally(() => {
        settled = true;
      });
      await vi.waitFor(() => expect(clock.pending).toBe(1));
      clock.advance(2499);
      await new Promise((r) => setImmediate(r));
      expect(settled).toBe(false);
      clock.advance(1);
      const res = await answer;
      expect(res.status).toBe(200);
      expect(res.body).toBe('');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await fake.close();
    }
  });
});
