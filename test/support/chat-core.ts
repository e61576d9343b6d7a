/**
 * The real chat core as the daemon runs it, for tests of the core and of each platform's
 * app on top of it: a database in a temp dir with some pipelines tracked, an engine with
 * no rule files, and the core's policy. Where an app must cope with a core that fails or
 * is slow, the core is wrapped to do that one thing and pass the rest through.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlertEngine } from '../../src/alerts/engine.js';
import type { ChatLimits } from '../../src/chat/limits.js';
import { ChatCore, type ChatCoreDeps } from '../../src/chat/service.js';
import type { ChatAnswer, ChatReply, ChatService } from '../../src/chat/types.js';
import type { Target, TargetKind } from '../../src/domain/targets.js';
import { type Logger, silentLogger } from '../../src/lib/logger.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { Store } from '../../src/store/index.js';
import { storePipelines } from '../fakes/pipelines.js';
import { ManualClock } from './clock.js';

/** When the core's clock starts unless a test gives it one, and when its pipelines were seen. */
export const CORE_NOW = '2026-11-20T15:00:00Z';

/** The pipelines tracked unless a test names others, as the core's vocabulary knows them. */
export const TRACKED_PIPELINES = ['transco', 'tgp', 'texas-eastern'];

/** What a test changes of the core: the daemon's settings and what it stands on. */
export interface ChatCoreOptions {
  /** Default a manual clock at `CORE_NOW`. */
  clock?: ManualClock;
  /** Default silent. */
  logger?: Logger;
  /** `PIPEWATCH_CHAT_ADMINS`; default none (anyone who may manage a channel may change it). */
  admins?: string[];
  /** Where a channel that went away is reported; default nowhere. */
  opsTarget?: Target;
  /** Default `TRACKED_PIPELINES`. */
  pipelines?: readonly string[];
  /** How much chat may store; each one unset: its variable's default. */
  limits?: Partial<ChatLimits>;
  /** The setting missing for a target kind to be delivered; default every kind is. */
  undelivered?: (kind: TargetKind) => string | undefined;
  /** The API's latest locations of a pipeline, as the daemon asks them; default none asked. */
  latestLocations?: ChatCoreDeps['latestLocations'];
}

/** The real chat core and what it stands on. */
export interface CoreUnderTest {
  core: ChatCore;
  store: Store;
  engine: AlertEngine;
  clock: ManualClock;
  /** Closes the database and removes its temp dir. */
  close(): void;
}

/** The chat core on a fresh database in a temp dir. */
export function startChatCore(options: ChatCoreOptions = {}): CoreUnderTest {
  const clock = options.clock ?? new ManualClock(CORE_NOW);
  const logger = options.logger ?? silentLogger;
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-chat-'));
  const store = Store.open(dir);
  storePipelines(store, options.pipelines ?? TRACKED_PIPELINES, CORE_NOW);
  const engine = new AlertEngine(
    { store: asyncStoreOf(store), clock, logger, maxAlertAgeMs: 86_400_000 },
    [],
  );
  const core = new ChatCore({
    store: asyncStoreOf(store),
    engine,
    clock,
    logger,
    policy: { admins: new Set(options.admins ?? []) },
    opsTarget: options.opsTarget,
    limits: options.limits,
    undelivered: options.undelivered,
    latestLocations: options.latestLocations,
  });
  return {
    core,
    store,
    engine,
    clock,
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A chat service that does what `core` does: the base a wrapper overrides one part of. */
export function passThrough(core: ChatService): ChatService {
  return {
    command: (caller, text) => core.command(caller, text),
    action: (caller, action) => core.action(caller, action),
    suggest: (field, typed) => core.suggest(field, typed),
    home: (platform, user, channels) => core.home(platform, user, channels),
    channelGone: (platform, channel, reason) => core.channelGone(platform, channel, reason),
  };
}

/** The core, every command, click and suggestion throwing `error` (home and channels as they are). */
export function failingCore(core: ChatService, error: Error): ChatService {
  const fail = (): never => {
    throw error;
  };
  return { ...passThrough(core), command: fail, action: fail, suggest: fail };
}

/** The core, every command's follow-up failing with `error`. */
export function followUpFails(core: ChatService, error: Error): ChatService {
  return {
    ...passThrough(core),
    async command(caller, text) {
      const { reply } = await core.command(caller, text);
      return { reply, followUp: Promise.reject<ChatReply | undefined>(error) };
    },
  };
}

/** The core, its commands' follow-ups held until the test lets them go, one per `release`. */
export function followUpHeld(core: ChatService): { chat: ChatService; release(): void } {
  const held: Array<() => void> = [];
  const chat: ChatService = {
    ...passThrough(core),
    async command(caller, text): Promise<ChatAnswer> {
      const answer = await core.command(caller, text);
      const followUp = answer.followUp;
      if (!followUp) return answer;
      return {
        reply: answer.reply,
        followUp: new Promise((resolve) => held.push(() => resolve(followUp))),
      };
    },
  };
  return { chat, release: () => held.shift()?.() };
}

/** An error as a failing database throws it, its message on several lines, with a stack. */
export const LOCKED = new Error('database is locked\n    at Statement.run (sqlite.js:1:1)');
