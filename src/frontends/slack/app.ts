/**
 * The Slack app: a Bolt `App` answering `/pipewatch`, pipewatch's buttons, the App Home
 * tab and the events that say a channel is gone (see `listeners.ts`), through the chat
 * core. Slack reaches it one of two ways: over HTTP at `POST /slack/events` on the
 * daemon's server, verified with the signing secret (`receiver.ts`), or, with an
 * app-level token, over Socket Mode, a WebSocket the app opens itself (no public URL).
 * Every Web API call, `apps.connections.open` included, goes to `apiUrl` when set.
 *
 * Either way each event is acted on once (`once.ts`). Socket Mode has no request
 * signatures and needs no replay check: the connection is pipewatch's own, opened with
 * the app token over TLS, and nothing but Slack can put an envelope on it. Its envelope
 * ids are only what each acknowledgement answers (Bolt's receiver sends them back);
 * Slack redelivers only events, in new envelopes, which their event ids catch.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { App, SocketModeReceiver, webApi } from '@slack/bolt';
import { clientLogger, clientLogging } from '../../channels/slack/client-log.js';
import { failureOf } from '../../channels/slack/errors.js';
import { fetchWithin } from '../../channels/slack/fetch-within.js';
import { DeliveryErrorCode } from '../../channels/types.js';
import type { ChatService } from '../../chat/types.js';
import type { Clock } from '../../lib/clock.js';
import type { HttpRoute } from '../../lib/http-route.js';
import type { Logger } from '../../lib/logger.js';
import { redactor } from '../../lib/redact.js';
import type { UnverifiedBodies } from '../../lib/request-body.js';
import type { RequestReplays } from '../replays.js';
import { registerListeners } from './listeners.js';
import { onlyOnce } from './once.js';
import { SlackHttpReceiver } from './receiver.js';

/** Where Slack sends commands, clicks and events in HTTP mode (`slack-app-manifest.yaml`). */
export const SLACK_EVENTS_PATH = '/slack/events';

/** Time allowed to one Web API call or `response_url` post of the app. */
export const DEFAULT_APP_TIMEOUT_MS = 10_000;

export interface SlackAppOptions {
  /** The bot token (`SLACK_BOT_TOKEN`). */
  token: string;
  /** `SLACK_SIGNING_SECRET`: needed over HTTP, that is without `appToken`. */
  signingSecret?: string | undefined;
  /** `SLACK_APP_TOKEN` (`xapp-…`): Socket Mode instead of HTTP. */
  appToken?: string | undefined;
  /** `SLACK_API_URL`: base URL of the Web API; Slack's own when unset. */
  apiUrl?: string | undefined;
  /** The chat core every command, click and event goes to. */
  chat: ChatService;
  /** The time request signatures are judged by and acknowledgement deadlines run on. */
  clock: Clock;
  logger: Logger;
  /** The requests and events received lately, kept across restarts (`store.interactions`). */
  replays: RequestReplays;
  /** Time allowed to one Web API call or `response_url` post. */
  timeoutMs?: number | undefined;
  /** HTTP: largest request body read, in bytes (default 1 MiB). */
  bodyLimit?: number | undefined;
  /** HTTP: how long a listener has to acknowledge before the receiver answers for it. */
  ackAfterMs?: number | undefined;
}

/** A running Slack app. */
export interface SlackApp {
  /** How Slack reaches it. */
  mode: 'http' | 'socket';
  /** The bot's user id, as `auth.test` said. */
  botUserId: string;
  /**
   * HTTP mode: the handler of `POST /slack/events` on the daemon's server, reading
   * bodies within the server's budget for bodies not yet trusted.
   */
  handleHttp?:
    | ((req: IncomingMessage, res: ServerResponse, bodies?: UnverifiedBodies) => Promise<void>)
    | undefined;
  /** What the daemon mounts on its HTTP port: `POST /slack/events` in HTTP mode, else none. */
  routes: readonly HttpRoute[];
  /** Stops taking requests (HTTP: 503 from then on) and closes the Socket Mode connection. */
  close(): Promise<void>;
}

/** The Slack app could not start: a missing setting or a refused token, in one line. */
export class SlackAppError extends Error {
  override name = 'SlackAppError';
}

/** A failed call's reason, and what to check: the token it was refused, else the way to Slack. */
function hint(error: unknown, method: string, variable: string, timeoutMs: number): string {
  const failure = failureOf(error, method, timeoutMs);
  const refused =
    failure.code === DeliveryErrorCode.Auth || failure.code === DeliveryErrorCode.Forbidden;
  return `${failure.reason}; check ${refused ? variable : 'the network and SLACK_API_URL'}`;
}

/** Starts the app: checks the bot token, then listens over HTTP or Socket Mode. */
export async function startSlackApp(options: SlackAppOptions): Promise<SlackApp> {
  const { token, appToken, signingSecret } = options;
  if (!appToken && !signingSecret) {
    throw new SlackAppError(
      'SLACK_SIGNING_SECRET is required to receive Slack requests over HTTP (or set SLACK_APP_TOKEN for Socket Mode)',
    );
  }
  const log = options.logger.child({ component: 'slack-app' });
  const timeoutMs = options.timeoutMs ?? DEFAULT_APP_TIMEOUT_MS;
  const { logger: boltLogger, fetch: clientFetch } = clientLogging(
    log,
    token,
    fetchWithin(timeoutMs),
  );
  const redact = redactor([token, appToken, signingSecret]);
  const clientOptions: webApi.WebClientOptions = {
    slackApiUrl: options.apiUrl || undefined,
    logger: boltLogger,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: timeoutMs,
    fetch: clientFetch,
  };
  const web = new webApi.WebClient(token, clientOptions);
  const me = await web.auth.test().catch((error: unknown) => {
    throw new SlackAppError(
      `the Slack app could not start: ${hint(error, 'auth.test', 'SLACK_BOT_TOKEN', timeoutMs)}`,
    );
  });
  const botUserId = String(me.user_id ?? '');
  const http =
    appToken || !signingSecret
      ? undefined
      : new SlackHttpReceiver({
          signingSecret,
          clock: options.clock,
          logger: log,
          replays: options.replays,
          bodyLimit: options.bodyLimit,
          ackAfterMs: options.ackAfterMs,
        });
  const socket = appToken
    ? new SocketModeReceiver({
        appToken,
        logger: clientLogger(log, appToken),
        // The Socket Mode client opens its connection with `apps.connections.open`
        // through a Web API client made from these options; a request of it that gets no
        // answer is logged with its method and host, as the other clients' are.
        installerOptions: {
          clientOptions: {
            slackApiUrl: options.apiUrl || undefined,
            retryConfig: { retries: 2 },
            ...clientLogging(log, appToken, fetch),
          },
        },
      })
    : undefined;
  const receiver = http ?? socket;
  // Either was made: the options were checked for one at the start.
  if (!receiver) throw new SlackAppError('neither SLACK_APP_TOKEN nor SLACK_SIGNING_SECRET is set');
  const app = new App({
    token,
    botId: me.bot_id,
    botUserId,
    receiver,
    logger: boltLogger,
    clientOptions,
    convoStore: false,
  });
  app.error(async (error) => {
    log.error(`a Slack listener failed: ${redact(String(error.message ?? error))}`);
  });
  app.use(onlyOnce(options.replays, options.clock, log));
  registerListeners(app, { chat: options.chat, clock: options.clock, log, botUserId });
  try {
    await app.start();
  } catch (error) {
    await socket?.client.disconnect().catch(() => undefined);
    throw new SlackAppError(
      `the Slack app could not connect: ${hint(error, 'apps.connections.open', 'SLACK_APP_TOKEN', timeoutMs)}`,
    );
  }
  const mode = socket ? 'socket' : 'http';
  log.info({ mode, botUserId }, `Slack app answering over ${socket ? 'Socket Mode' : 'HTTP'}`);
  const handleHttp = http
    ? (req: IncomingMessage, res: ServerResponse, bodies?: UnverifiedBodies) =>
        http.handle(req, res, bodies)
    : undefined;
  return {
    mode,
    botUserId,
    handleHttp,
    routes: handleHttp ? [{ method: 'POST', path: SLACK_EVENTS_PATH, handle: handleHttp }] : [],
    close: async () => {
      if (http) await http.stop();
      if (socket) await socket.client.disconnect();
    },
  };
}
