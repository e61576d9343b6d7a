/**
 * The Slack app as the daemon runs it, for tests: the real chat core on a database in a
 * temp dir (three pipelines tracked, an engine with no rule files), the Slack fake as
 * Slack, and over HTTP the app mounted at `POST /slack/events` on the daemon's own HTTP
 * server, reached by requests signed as Slack signs them. One manual clock runs the app,
 * the core, the fake (response URLs expire on it) and the sender (timestamps come from it).
 */

import type { Alert } from '../../../src/channels/types.js';
import type { ChatLimits } from '../../../src/chat/limits.js';
import type { ChatCore } from '../../../src/chat/service.js';
import type { ChatService } from '../../../src/chat/types.js';
import {
  type SlackApp,
  type SlackAppOptions,
  startSlackApp,
} from '../../../src/frontends/slack/app.js';
import type { RunningHttpServer } from '../../../src/http/server.js';
import type { Logger } from '../../../src/lib/logger.js';
import { asyncStoreOf } from '../../../src/store/async-sqlite.js';
import { channelsFor, sendContext } from '../../channels/slack/support.js';
import { noticeAlert } from '../../fakes/alerts.js';
import { type SlackFake, type SlackFakeOptions, startSlackFake } from '../../fakes/slack.js';
import { type SlackRequestSender, slackRequestSender } from '../../fakes/slack-requests.js';
import { capturedLogger } from '../../support/captured-logger.js';
import { CORE_NOW, type CoreUnderTest, startChatCore } from '../../support/chat-core.js';
import { ManualClock } from '../../support/clock.js';
import { serveRoutes } from '../../support/http-server.js';

/** When every test of the app starts: where the core's clock starts. */
export const NOW = CORE_NOW;

/** The signing secret the app is given (32 hex characters, as Slack's are). */
export const SIGNING_SECRET = '3f1c9a7be05d4c2f8a6b1e9d7c3a5f20';

/** The app running on the core, and what a test drives it with and reads its effects in. */
export interface AppUnderTest extends CoreUnderTest {
  app: SlackApp;
  fake: SlackFake;
  server: RunningHttpServer;
  /** `POST /slack/events` on the daemon's server. */
  events: string;
  /** Requests to `events`, signed with `SIGNING_SECRET` at the clock's time. */
  send: SlackRequestSender;
  /** The app's and the core's log lines. */
  lines: string[];
  /** The logger writing `lines`. */
  logger: Logger;
  close(): Promise<void>;
}

/** What a test changes of the app, the fake, or what the app talks to. */
export interface AppUnderTestOptions {
  app?: Partial<SlackAppOptions>;
  fake?: SlackFakeOptions;
  /** What the app talks to instead of the core itself: the core made to fail one way. */
  chat?: (core: ChatCore) => ChatService;
  /** How much chat may store; each one unset: its variable's default. */
  limits?: Partial<ChatLimits>;
  /** `PIPEWATCH_CHAT_ADMINS`; default none. */
  admins?: string[];
}

/** Starts the app over HTTP behind the daemon's server, on the real chat core. */
export async function startAppUnderTest(options: AppUnderTestOptions = {}): Promise<AppUnderTest> {
  const clock = new ManualClock(NOW);
  const { logger, lines } = capturedLogger();
  const fake = await startSlackFake({
    rate: { perSecond: 100, burst: 10 },
    clock,
    ...options.fake,
  });
  const chat = startChatCore({
    clock,
    logger,
    admins: options.admins ?? [],
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const app = await startSlackApp({
    token: fake.token,
    signingSecret: SIGNING_SECRET,
    apiUrl: fake.url,
    chat: options.chat ? options.chat(chat.core) : chat.core,
    clock,
    logger,
    replays: asyncStoreOf(chat.store).interactions,
    timeoutMs: 5000,
    ...options.app,
  });
  // The app a test swaps in (a restart) takes the next request.
  const server = await serveRoutes(
    app.handleHttp
      ? [
          {
            method: 'POST',
            path: '/slack/events',
            handle: (req, res, bodies) => ut.app.handleHttp!(req, res, bodies),
          },
        ]
      : [],
    { logger: logger },
  );
  const events = `${server.url}/slack/events`;
  const ut: AppUnderTest = {
    ...chat,
    app,
    fake,
    server,
    events,
    send: slackRequestSender({ url: events, signingSecret: SIGNING_SECRET, clock }),
    lines,
    logger,
    async close() {
      await ut.app.close();
      await server.close();
      await fake.close();
      chat.close();
    },
  };
  return ut;
}

/** An alert with its buttons, sent to #gas (`C0GAS`) by the Slack channel as the daemon sends it. */
export async function postedAlert(
  t: AppUnderTest,
  alert: Alert = noticeAlert(),
): Promise<{ channel: string; ts: string }> {
  const channels = channelsFor(t.fake, { interactive: true });
  try {
    const before = t.fake.posts.length;
    await channels.slack.send({ kind: 'slack', channel: 'C0GAS' }, [alert], sendContext());
    const posted = t.fake.posts[before]!;
    return { channel: posted.channel, ts: posted.ts };
  } finally {
    await channels.slack.close?.();
  }
}
