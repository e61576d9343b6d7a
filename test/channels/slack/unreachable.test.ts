/**
 * Slack out of reach: the Web API's address is the port of a Slack fake that has closed,
 * so each call is refused on loopback (ECONNREFUSED). The log names the method, the host
 * and the cause in one warning per call, not the client's bare "http request failed fetch
 * failed" (kept at debug), and the bot token appears nowhere in it, at any level. The
 * same for the alert channels, the Slack app's start and its Socket Mode connection.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startSlackApp } from '../../../src/frontends/slack/app.js';
import { createLogger } from '../../../src/lib/logger.js';
import { asyncStoreOf } from '../../../src/store/async-sqlite.js';
import { failure, noticeAlert } from '../../fakes/alerts.js';
import { FAKE_APP_TOKEN, type SlackFake, startSlackFake } from '../../fakes/slack.js';
import { type CoreUnderTest, startChatCore } from '../../support/chat-core.js';
import { ManualClock } from '../../support/clock.js';
import { channelsFor, sendContext } from './support.js';

interface Line {
  level: number;
  msg: string;
  method?: string;
  host?: string;
  cause?: string;
}

let chat: CoreUnderTest | undefined;
afterEach(() => {
  chat?.close();
  chat = undefined;
});

/** A fake's token and its address, the fake closed: nothing listens there any more. */
async function closedFake(): Promise<{ fake: SlackFake; host: string }> {
  const fake = await startSlackFake();
  await fake.close();
  return { fake, host: new URL(fake.url).host };
}

/** A logger at trace level whose JSON lines a test reads back, whole and parsed. */
function capturedLogger() {
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      raw.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level: 'trace', pretty: false, destination });
  const lines = () => raw.map((l) => JSON.parse(l) as Line);
  const warnings = () => lines().filter((l) => l.level === 40);
  return { logger, raw, lines, warnings };
}

describe('Slack out of reach', () => {
  it('logs which method to which host failed and why, once per call, without the token', async () => {
    const { fake, host } = await closedFake();
    const log = capturedLogger();
    const { slack } = channelsFor(fake, {}, { logger: log.logger });
    try {
      const error = await failure(
        slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], sendContext()),
      );
      expect(error).toMatchObject({
        permanent: false,
        reason: 'slack: network error ECONNREFUSED (#gas)',
      });
      const port = host.split(':')[1];
      expect(log.warnings()).toEqual([
        expect.objectContaining({
          method: 'chat.postMessage',
          host,
          cause: 'ECONNREFUSED',
          msg: `slack: chat.postMessage to ${host} failed: connect ECONNREFUSED 127.0.0.1:${port}`,
        }),
      ]);
      // The client's own line is still there for debugging, below the warning.
      expect(log.lines().filter((l) => l.msg.startsWith('http request failed'))).toEqual([
        expect.objectContaining({ level: 20 }),
      ]);
      const all = log.raw.join('');
      // Trace level: the request's headers, where the token travels, were logged too.
      expect(all).toContain('http request headers');
      expect(all).not.toContain(fake.token);
      expect(all).not.toContain(fake.token.slice(5));
    } finally {
      await slack.close?.();
    }
  });

  it('names each method: the DM lookup by email, and the token check', async () => {
    const { fake, host } = await closedFake();
    const log = capturedLogger();
    const { slack, slack_dm } = channelsFor(fake, {}, { logger: log.logger });
    try {
      await failure(
        slack_dm.send(
          { kind: 'slack_dm', user: 'ops@example.com' },
          [noticeAlert()],
          sendContext(),
        ),
      );
      await expect(slack.verify!()).rejects.toThrow(
        'slack: network error ECONNREFUSED (auth.test)',
      );
      expect(log.warnings().map((l) => [l.method, l.host, l.cause])).toEqual([
        ['users.lookupByEmail', host, 'ECONNREFUSED'],
        ['auth.test', host, 'ECONNREFUSED'],
      ]);
      expect(log.raw.join('')).not.toContain(fake.token);
    } finally {
      await slack.close?.();
    }
  });

  it('logs the same for the Slack app, which cannot start', async () => {
    const { fake, host } = await closedFake();
    const log = capturedLogger();
    const clock = new ManualClock('2026-11-20T15:00:00Z');
    chat = startChatCore({ clock });
    const started = startSlackApp({
      token: fake.token,
      signingSecret: '0123456789abcdef0123456789abcdef',
      apiUrl: fake.url,
      chat: chat.core,
      clock,
      logger: log.logger,
      replays: asyncStoreOf(chat.store).interactions,
    });
    await expect(started).rejects.toThrow(/network error ECONNREFUSED \(auth\.test\)/);
    expect(log.warnings()).toEqual([
      expect.objectContaining({ method: 'auth.test', host, cause: 'ECONNREFUSED' }),
    ]);
    expect(log.raw.join('')).not.toContain(fake.token);
  });

  it('logs the Socket Mode connection that failed, with the app token nowhere', async () => {
    const fake = await startSlackFake();
    const log = capturedLogger();
    const clock = new ManualClock('2026-11-20T15:00:00Z');
    chat = startChatCore({ clock });
    // The first apps.connections.open gets its connection closed unanswered; the client
    // asks again (once, a second later) and connects.
    fake.inject({ method: 'apps.connections.open', reset: true });
    const app = await startSlackApp({
      token: fake.token,
      appToken: FAKE_APP_TOKEN,
      apiUrl: fake.url,
      chat: chat.core,
      clock,
      logger: log.logger,
      replays: asyncStoreOf(chat.store).interactions,
    });
    try {
      await fake.socket.connected(1);
      expect(log.warnings()).toEqual([
        expect.objectContaining({
          method: 'apps.connections.open',
          host: new URL(fake.url).host,
          cause: 'UND_ERR_SOCKET',
        }),
      ]);
      const all = log.raw.join('');
      expect(all).not.toContain(FAKE_APP_TOKEN);
      expect(all).not.toContain(fake.token);
    } finally {
      await app.close();
      await fake.close();
    }
  });
});
