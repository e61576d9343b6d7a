/**
 * The Slack app, the Discord app and the unsubscribe links on one server, wired as
 * `pipewatch run` wires them, around a chat core and a store the caller gives: what
 * tests and benches of the daemon's inbound HTTP (forged requests, unverified bodies)
 * send to. Discord's key is one made for the run; its API is never reached.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { ChatService } from '../../src/chat/types.js';
import { type DiscordApp, startDiscordApp } from '../../src/frontends/discord/app.js';
import { type SlackApp, startSlackApp } from '../../src/frontends/slack/app.js';
import type { RunningHttpServer } from '../../src/http/server.js';
import type { Clock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { UnverifiedLimits } from '../../src/lib/request-body.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import { unsubscribeRoutes } from '../../src/unsubscribe/routes.js';
import { serveRoutes } from './http-server.js';

/** What the endpoints run on. */
export interface ChatEndpointsOptions {
  chat: ChatService;
  store: Store;
  clock: Clock;
  /** Where Slack's Web API is (a fake), its bot token and the app's signing secret. */
  slack: { apiUrl: string; token: string; signingSecret: string };
  /** What bodies get before they are trusted; default the server's own. */
  unverified?: Partial<UnverifiedLimits> | undefined;
}

/** The running endpoints. */
export interface ChatEndpoints {
  server: RunningHttpServer;
  slack: SlackApp;
  discord: DiscordApp;
  /** Closes the apps and the server; the chat core, the store and the fake are the caller's. */
  close(): Promise<void>;
}

export async function serveChatEndpoints(options: ChatEndpointsOptions): Promise<ChatEndpoints> {
  const { chat, store, clock } = options;
  const common = { chat, clock, logger: silentLogger, replays: asyncStoreOf(store).interactions };
  const slack = await startSlackApp({ ...common, ...options.slack });
  const { publicKey } = generateKeyPairSync('ed25519');
  const discord = startDiscordApp({
    ...common,
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex'),
    apiUrl: 'http://127.0.0.1:9',
  });
  const server = await serveRoutes(
    [
      { method: 'POST', path: '/slack/events', handle: slack.handleHttp! },
      { method: 'POST', path: '/discord/interactions', handle: discord.handleHttp },
      ...unsubscribeRoutes({
        store: asyncStoreOf(store),
        clock,
        logger: silentLogger,
        key: 'k'.repeat(40),
      }),
    ],
    { unverified: options.unverified },
  );
  return {
    server,
    slack,
    discord,
    async close() {
      await slack.close();
      await discord.close();
      await server.close();
    },
  };
}
