/**
 * The Discord app as the daemon runs it, for tests: the real chat core on a database in a
 * temp dir (three pipelines tracked, an engine with no rule files), the interaction ids
 * in that database, the Discord fake as Discord's API (its interaction webhooks added),
 * and the app mounted at `POST /discord/interactions` on the daemon's own HTTP server,
 * reached by interactions signed as Discord signs them. One manual clock runs the app,
 * the core and Discord's side (timestamps and token lifetimes come from it).
 */

import type { ChatLimits } from '../../../src/chat/limits.js';
import type { ChatCore } from '../../../src/chat/service.js';
import type { ChatService } from '../../../src/chat/types.js';
import {
  type DiscordApp,
  type DiscordAppOptions,
  startDiscordApp,
} from '../../../src/frontends/discord/app.js';
import type { RunningHttpServer } from '../../../src/http/server.js';
import type { Logger } from '../../../src/lib/logger.js';
import { asyncStoreOf } from '../../../src/store/async-sqlite.js';
import type { Store } from '../../../src/store/index.js';
import { type DiscordFake, startDiscordFake } from '../../fakes/discord.js';
import { type DiscordInteractions, discordInteractions } from '../../fakes/discord-interactions.js';
import { capturedLogger } from '../../support/captured-logger.js';
import { CORE_NOW, startChatCore } from '../../support/chat-core.js';
import type { ManualClock } from '../../support/clock.js';
import { serveRoutes } from '../../support/http-server.js';

/** When every test of the app starts: where the core's clock starts. */
export const NOW = CORE_NOW;

/** The app running on the core, and what a test drives it with and reads its effects in. */
export interface AppUnderTest {
  /** The app taking requests; a test may put another in its place. */
  app: DiscordApp;
  core: ChatCore;
  store: Store;
  clock: ManualClock;
  fake: DiscordFake;
  server: RunningHttpServer;
  /** Discord's side: signed interactions to the app, follow-ups recorded. */
  discord: DiscordInteractions;
  /** The app's and the core's log lines. */
  lines: string[];
  logger: Logger;
  close(): Promise<void>;
}

/** What a test changes of the app or of the core. */
export interface AppUnderTestOptions {
  app?: Partial<DiscordAppOptions>;
  /** `PIPEWATCH_CHAT_ADMINS`. */
  admins?: string[];
  /** What the app talks to instead of the core itself: the core made to fail one way. */
  chat?: (core: ChatCore) => ChatService;
  /** How much chat may store; each one unset: its variable's default. */
  limits?: Partial<ChatLimits>;
}

/** Starts the app behind the daemon's server, on the real chat core. */
export async function startAppUnderTest(options: AppUnderTestOptions = {}): Promise<AppUnderTest> {
  const { logger, lines } = capturedLogger();
  const chat = startChatCore({
    logger,
    admins: options.admins ?? [],
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const { core, store, clock } = chat;
  const fake = await startDiscordFake();
  // The app a test swaps in (a restart) takes the next request.
  const server = await serveRoutes(
    [
      {
        method: 'POST',
        path: '/discord/interactions',
        handle: (req, res, bodies) => ut.app.handleHttp(req, res, bodies),
      },
    ],
    { logger: logger },
  );
  const discord = discordInteractions({ url: `${server.url}/discord/interactions`, fake, clock });
  const app = startDiscordApp({
    publicKey: discord.publicKey,
    apiUrl: fake.url,
    chat: options.chat ? options.chat(core) : core,
    clock,
    logger,
    replays: asyncStoreOf(store).interactions,
    timeoutMs: 5000,
    ...options.app,
  });
  const ut: AppUnderTest = {
    app,
    core,
    store,
    clock,
    fake,
    server,
    discord,
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
