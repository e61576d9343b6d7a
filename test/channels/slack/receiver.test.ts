/**
 * Requests to `POST /slack/events` on the daemon's server: only what Slack signed, at the
 * time it says, once, within the size limit, reaches the app; everything else is refused
 * before it is read (401 or 413) and the chat core never hears of it. And every request
 * gets its answer in time, even from a listener that never acknowledges.
 */
import { App } from '@slack/bolt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientLogger } from '../../../src/channels/slack/client-log.js';
import { SlackHttpReceiver } from '../../../src/channels/slack/receiver.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { ManualClock } from '../../support/clock.js';
import { type AppUnderTest, startAppUnderTest } from './app-setup.js';
import { post, SIGNING_SECRET, signed, slashCommand, urlVerification } from './signed-requests.js';

let t: AppUnderTest;

afterEach(async () => {
  await t?.close();
});

describe('POST /slack/events', () => {
  it('answers a signed slash command with the reply as its body', async () => {
    t = await startAppUnderTest();
    const res = await post(
      t.events,
      slashCommand('list', t.clock.now(), t.extras.responseUrl('a')),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const body = JSON.parse(res.text);
    expect(body).toMatchObject({ response_type: 'ephemeral', text: 'You said: list' });
    expect(body.blocks[0]).toMatchObject({ type: 'section', text: { text: 'You said: list' } });
    expect(t.chat.calls).toEqual([
      {
        method: 'command',
        caller: {
          platform: 'slack',
          channel: 'C0GAS',
          channelName: 'gas',
          user: 'U0ALICE',
          userName: 'alice',
          direct: false,
        },
        text: 'list',
      },
    ]);
  });

  it('answers url_verification with its challenge', async () => {
    t = await startAppUnderTest();
    const res = await post(
      t.events,
      urlVerification('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', t.clock.now()),
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    });
  });

  it('refuses a request signed with another secret: 401, nothing done', async () => {
    t = await startAppUnderTest();
    const req = slashCommand('subscribe transco', t.clock.now(), t.extras.responseUrl('a'));
    const forged = signed(req.body, req.headers['content-type']!, t.clock.now(), 'f'.repeat(32));
    const res = await post(t.events, forged);
    expect(res.status).toBe(401);
    expect(res.text).toBe('the signature does not match the body\n');
    expect(t.chat.calls).toEqual([]);
    expect(t.lines.some((l) => l.includes('refused a request to /slack/events'))).toBe(true);
  });

  it('refuses a request without a signature', async () => {
    t = await startAppUnderTest();
    const req = slashCommand('list', t.clock.now(), t.extras.responseUrl('a'));
    const { 'x-slack-signature': _gone, ...headers } = req.headers;
    expect((await post(t.events, { headers, body: req.body })).status).toBe(401);
    expect(t.chat.calls).toEqual([]);
  });

  it('refuses a timestamp more than 5 minutes from the clock, either way', async () => {
    t = await startAppUnderTest();
    const url = t.extras.responseUrl('a');
    const now = t.clock.now().getTime();
    const stale = slashCommand('list', new Date(now - 5 * 60_000 - 1000), url);
    const ahead = slashCommand('list', new Date(now + 5 * 60_000 + 1000), url);
    const edge = slashCommand('list', new Date(now - 5 * 60_000), url);
    const staleRes = await post(t.events, stale);
    expect(staleRes.status).toBe(401);
    expect(staleRes.text).toContain('more than 5 minutes from now');
    expect((await post(t.events, ahead)).status).toBe(401);
    expect(t.chat.calls).toEqual([]);
    expect((await post(t.events, edge)).status).toBe(200);
    expect(t.chat.calls).toHaveLength(1);
  });

  it('judges the timestamp by the clock it was given', async () => {
    t = await startAppUnderTest();
    const req = slashCommand('list', t.clock.now(), t.extras.responseUrl('a'));
    t.clock.advance(5 * 60_000 + 1000);
    expect((await post(t.events, req)).status).toBe(401);
    expect(t.chat.calls).toEqual([]);
  });

  it('refuses a request it has already accepted (a replay), within the window', async () => {
    t = await startAppUnderTest();
    const req = slashCommand('mute transco for 4h', t.clock.now(), t.extras.responseUrl('a'));
    expect((await post(t.events, req)).status).toBe(200);
    t.clock.advance(60_000);
    const again = await post(t.events, req);
    expect(again.status).toBe(401);
    expect(again.text).toContain('replayed');
    expect(t.chat.calls).toHaveLength(1);
  });

  it('refuses a body changed after it was signed', async () => {
    t = await startAppUnderTest();
    const req = slashCommand('list', t.clock.now(), t.extras.responseUrl('a'));
    const changed = {
      headers: req.headers,
      body: req.body.replace('text=list', 'text=unsubscribe+all'),
    };
    expect(changed.body).not.toBe(req.body);
    expect((await post(t.events, changed)).status).toBe(401);
    expect(t.chat.calls).toEqual([]);
  });

  it('refuses a body larger than the limit with 413, unread', async () => {
    t = await startAppUnderTest({ bodyLimit: 4096 });
    const big = slashCommand(
      `subscribe ${'x'.repeat(8000)}`,
      t.clock.now(),
      t.extras.responseUrl('a'),
    );
    const res = await post(t.events, big);
    expect(res.status).toBe(413);
    expect(t.chat.calls).toEqual([]);
    // The same request without a declared length is cut off at the limit too.
    const chunked = { headers: { ...big.headers, 'transfer-encoding': 'chunked' }, body: big.body };
    expect((await post(t.events, chunked)).status).toBe(413);
    expect(t.chat.calls).toEqual([]);
  });

  it('answers 405 to any other method on the Slack URL', async () => {
    t = await startAppUnderTest();
    const res = await fetch(t.events);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('answers a request no listener takes (a link button) with 200 at once', async () => {
    t = await startAppUnderTest();
    const payload = {
      type: 'block_actions',
      user: { id: 'U0ALICE', username: 'alice' },
      team: { id: 'T0ACME', domain: 'acme-gas' },
      actions: [{ action_id: 'open_notice', type: 'button', block_id: 'b', action_ts: '1' }],
    };
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const res = await post(
      t.events,
      signed(body, 'application/x-www-form-urlencoded', t.clock.now()),
    );
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(t.chat.calls).toEqual([]);
  });
});

describe('a listener that never acknowledges', () => {
  it('still gets its request answered with 200, empty, after 2.5 s of the clock', async () => {
    const clock = new ManualClock('2026-11-20T15:00:00Z');
    const receiver = new SlackHttpReceiver({
      signingSecret: SIGNING_SECRET,
      clock,
      logger: silentLogger,
    });
    const app = new App({
      token: 'xoxb-0000-never-used',
      botId: 'B0BOT',
      botUserId: 'U0BOT',
      receiver,
      logger: clientLogger(silentLogger, 'xoxb-0000-never-used'),
      convoStore: false,
    });
    app.command('/pipewatch', () => new Promise<void>(() => undefined));
    await app.start();
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => void receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      let settled = false;
      const answer = post(
        `http://127.0.0.1:${port}/slack/events`,
        slashCommand('list', clock.now(), 'http://127.0.0.1:9/respond'),
      ).finally(() => {
        settled = true;
      });
      await vi.waitFor(() => expect(clock.pending).toBe(1));
      clock.advance(2499);
      await new Promise((r) => setImmediate(r));
      expect(settled).toBe(false);
      clock.advance(1);
      const res = await answer;
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
