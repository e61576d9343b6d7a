/**
 * The Discord app: Discord's interactions (the `/pipewatch` command, autocompletion,
 * clicks on pipewatch's buttons and menus) at `POST /discord/interactions` on the
 * daemon's HTTP server, answered through the chat core (see `interactions.ts`). Each
 * request goes through, in order: the signature headers (timestamp within five minutes
 * of pipewatch's clock; without them 401, the body unread), the body read up to a limit
 * (a larger one: 413, unread) within the server's budget for bodies not yet trusted (no
 * room left: 503 with `Retry-After`, unread), the
 * Ed25519 signature of the raw body (any refusal: 401, nothing parsed, nothing done);
 * then the body is parsed as an interaction (`interaction-schema.ts`; 400, naming the
 * field at fault, when it is not one Discord would send), a PING answered with a PONG,
 * and every other interaction checked against the ids already answered before it is
 * acted on. Everything up to the answer is synchronous, well within
 * Discord's 3 seconds; a command's follow-up goes afterwards through the interaction's
 * webhook (`follow-ups.ts`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { oneLine } from '../../channels/text.js';
import { DeliveryError } from '../../channels/types.js';
import type { ChatReply, ChatService } from '../../chat/types.js';
import type { Clock } from '../../lib/clock.js';
import type { HttpRoute } from '../../lib/http-route.js';
import type { Logger } from '../../lib/logger.js';
import { RefusalLog } from '../../lib/refusal-log.js';
import {
  BUSY,
  BUSY_RETRY_AFTER_S,
  readBody,
  turnedAway,
  UnverifiedBodies,
} from '../../lib/request-body.js';
import { firstArrival, type RequestReplays } from '../replays.js';
import { COMMAND_NAME } from './command-words.js';
import { FollowUps } from './follow-ups.js';
import { type InteractionBase, readInteraction } from './interaction-schema.js';
import { callerOf, FAILED, InteractionHandler, RESPONSE } from './interactions.js';
import { privateNote, replyData } from './reply-messages.js';
import { answer, DEFAULT_BODY_LIMIT } from './request-body.js';
import { InteractionSignature, PublicKeyError } from './signature.js';

/** The defaults of `timeoutMs` and `bodyLimit`, for whoever starts the app. */
export { DEFAULT_FOLLOW_UP_TIMEOUT_MS } from './follow-ups.js';
export { DEFAULT_BODY_LIMIT } from './request-body.js';

/** What the daemon gives the app: its key, where Discord's API is, the chat core, the time. */
export interface DiscordAppOptions {
  /** `DISCORD_PUBLIC_KEY`: the application's Ed25519 public key, 64 hex characters. */
  publicKey: string;
  /** `DISCORD_API_URL`: base URL without the version; Discord's own when unset. */
  apiUrl?: string | undefined;
  /** The chat core every command and click goes to. */
  chat: ChatService;
  /** The time signatures are judged by and follow-ups are timed on. */
  clock: Clock;
  logger: Logger;
  /** The interaction ids answered lately, kept across restarts (`store.interactions`). */
  replays: RequestReplays;
  /** Largest request body read, in bytes (default 1 MiB). */
  bodyLimit?: number | undefined;
  /** Time allowed to one follow-up post. */
  timeoutMs?: number | undefined;
}

/** Where Discord sends interactions: the application's Interactions Endpoint URL. */
export const DISCORD_INTERACTIONS_PATH = '/discord/interactions';

/** A running Discord app. */
export interface DiscordApp {
  /**
   * The handler of `POST /discord/interactions` on the daemon's server, reading bodies
   * within the server's budget for bodies not yet trusted.
   */
  handleHttp(req: IncomingMessage, res: ServerResponse, bodies?: UnverifiedBodies): Promise<void>;
  /** What the daemon mounts on its HTTP port: `POST /discord/interactions`. */
  routes: readonly HttpRoute[];
  /** Stops taking requests (503 from then on) and calls off the follow-ups under way. */
  close(): Promise<void>;
}

/** The Discord app could not start: a setting it cannot use, in one line. */
export class DiscordAppError extends Error {
  override name = 'DiscordAppError';
}

function messageOf(error: unknown): string {
  if (error instanceof DeliveryError) return error.reason;
  return oneLine(error instanceof Error ? error.message : String(error)).slice(0, 300);
}

/**
 * Starts the app. It listens on nothing itself: the daemon mounts `handleHttp` at
 * `POST /discord/interactions`. Throws `DiscordAppError` for a public key it cannot use.
 */
export function startDiscordApp(options: DiscordAppOptions): DiscordApp {
  let signature: InteractionSignature;
  try {
    signature = new InteractionSignature(options.publicKey);
  } catch (error) {
    if (error instanceof PublicKeyError) throw new DiscordAppError(error.message);
    throw error;
  }
  const { clock } = options;
  const log = options.logger.child({ component: 'discord-app' });
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const handler = new InteractionHandler(options.chat, log);
  const followUps = new FollowUps({ apiUrl: options.apiUrl, clock, timeoutMs: options.timeoutMs });
  let stopped = false;

  /** Posts a command's follow-up once it is ready; a failure is logged, never thrown. */
  function followUp(interaction: InteractionBase, pending: Promise<ChatReply | undefined>) {
    const { application_id: applicationId, token } = interaction;
    const user = callerOf(interaction)?.user;
    pending
      .then(
        async (reply) => {
          if (reply && !stopped) await followUps.post(applicationId, token, replyData(reply));
        },
        async (error: unknown) => {
          log.error({ user }, `/${COMMAND_NAME} failed: ${messageOf(error)}`);
          if (!stopped) await followUps.post(applicationId, token, privateNote(FAILED));
        },
      )
      .catch((error: unknown) => {
        log.warn({ user }, `could not post the follow-up of /${COMMAND_NAME}: ${messageOf(error)}`);
      });
  }

  /**
   * Whether the interaction is one not seen before. A replayed interaction (one already
   * answered, sent again with its valid signature) is refused with 401 like any request
   * whose sender is not shown to be Discord: the signature proves that Discord sent those
   * bytes once, not that it sent them again, and Discord itself never sends an
   * interaction twice. Nothing about it is acted on.
   */
  function firstTime(id: string): Promise<boolean> {
    return firstArrival(options.replays, id, clock);
  }

  /** The budget when no pipewatch server gives one. */
  const ownBodies = new UnverifiedBodies();
  /** Refusals logged a line a minute at most, so that a flood does not fill the log. */
  const refusals = new RefusalLog(log, clock);

  async function handleHttp(
    req: IncomingMessage,
    res: ServerResponse,
    bodies: UnverifiedBodies = ownBodies,
  ): Promise<void> {
    // A refused request's connection is closed: a client that sends forged requests
    // must open a connection for each.
    const refuse = (status: number, why: string) => {
      refusals.refused(status, req.url ?? '/', why);
      answer(res, status, why, true);
    };
    if (stopped) return refuse(503, 'the Discord app is not running');
    const early = signature.refuseHeaders(req.headers, clock.now().getTime());
    if (early) {
      req.resume();
      return refuse(401, early);
    }
    const read = await readBody(req, bodyLimit, bodies);
    if (read === 'aborted') return;
    if (read === 'too-large') return refuse(413, `the body is larger than ${bodyLimit} bytes`);
    if (read === 'busy') {
      if (bodies.worthLogging())
        log.warn({ status: 503 }, turnedAway('/discord/interactions', bodies));
      return answer(res, 503, BUSY, true, { 'retry-after': String(BUSY_RETRY_AFTER_S) });
    }
    const why = signature.refuse(req.headers, read.raw, clock.now().getTime());
    if (why) return refuse(401, why);
    const parsed = readInteraction(read.raw);
    if (parsed.kind === 'refused') return refuse(400, parsed.why);
    if (parsed.kind === 'ping') return answer(res, 200, { type: RESPONSE.pong });
    const { interaction } = parsed;
    const { id } = interaction;
    let fresh: boolean;
    try {
      fresh = await firstTime(id);
    } catch (error) {
      return answer(res, 200, handler.failed(interaction, error).response);
    }
    if (!fresh) return refuse(401, `interaction ${id} was already received (a replay)`);
    const { response, followUp: pending } = await handler.answer(parsed);
    answer(res, 200, response);
    if (pending) followUp(interaction, pending);
  }

  return {
    handleHttp,
    routes: [{ method: 'POST', path: DISCORD_INTERACTIONS_PATH, handle: handleHttp }],
    close: async () => {
      stopped = true;
      followUps.close();
    },
  };
}
