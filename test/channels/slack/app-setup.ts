/**
 * The Slack app as the daemon runs it over HTTP, for tests: started against the loopback
 * fake (behind the extras), driven by the chat stand-in, mounted at `POST /slack/events`
 * on the daemon's own HTTP server, judging request timestamps by a manual clock.
 */
import {
  type SlackApp,
  type SlackAppOptions,
  startSlackApp,
} from '../../../src/channels/slack/app.js';
import { Metrics } from '../../../src/http/metrics.js';
import { type RunningHttpServer, startHttpServer } from '../../../src/http/server.js';
import { assessHealth } from '../../../src/ingest/health.js';
import { type SlackFake, startSlackFake } from '../../fakes/slack.js';
import { ManualClock } from '../../support/clock.js';
import { ChatStandIn } from './chat-stand-in.js';
import { SIGNING_SECRET } from './signed-requests.js';
import { capturedLogger } from './support.js';
import { type SlackExtras, startSlackExtras } from './web-api-extras.js';

export interface AppUnderTest {
  app: SlackApp;
  chat: ChatStandIn;
  clock: ManualClock;
  fake: SlackFake;
  extras: SlackExtras;
  server: RunningHttpServer;
  /** `POST /slack/events` on the daemon's server. */
  events: string;
  lines: string[];
  close(): Promise<void>;
}

/** Starts the app in HTTP mode behind the daemon's server. */
export async function startAppUnderTest(
  options: Partial<SlackAppOptions> = {},
  channelsOf: Record<string, string[]> = {},
): Promise<AppUnderTest> {
  const clock = new ManualClock('2026-11-20T15:00:00Z');
  const fake = await startSlackFake({ rate: { perSecond: 100, burst: 10 } });
  const extras = await startSlackExtras(fake, channelsOf);
  const chat = new ChatStandIn(clock);
  const { logger, lines } = capturedLogger();
  const app = await startSlackApp({
    token: fake.token,
    signingSecret: SIGNING_SECRET,
    apiUrl: extras.url,
    chat,
    clock,
    logger,
    timeoutMs: 5000,
    ...options,
  });
  const server = await startHttpServer({
    port: 0,
    metrics: new Metrics({ processMetrics: false }),
    logger,
    health: () => assessHealth([], [], new Date(0), new Date(0)),
    status: () => ({}),
    publicStatus: () => ({}),
    routes: app.handleHttp
      ? [{ method: 'POST', path: '/slack/events', handle: app.handleHttp }]
      : [],
  });
  return {
    app,
    chat,
    clock,
    fake,
    extras,
    server,
    events: `${server.url}/slack/events`,
    lines,
    async close() {
      await app.close();
      await server.close();
      await extras.close();
      await fake.close();
    },
  };
}
