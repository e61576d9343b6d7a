/**
 * Each request from Slack acted on once, whichever way it came (`app.use`, before every
 * listener).
 *
 * Over HTTP the receiver refuses a signature it accepted before (`receiver.ts`); when the
 * database cannot say whether it did, the request is passed on marked unchecked, and a
 * command or a click is acted on by no listener: the person who typed or clicked is told
 * pipewatch could not do it, as for any failure of the core. An event goes on to the
 * check of its id below.
 *
 * Events: Slack delivers an event again when it did not hear a 200 within 3 seconds (at
 * once, then after a minute, then after five), over HTTP with `X-Slack-Retry-Num` and a
 * new signature, over Socket Mode in a new envelope with `retry_attempt`; every delivery
 * carries the same `event_id`. The ids are remembered in the database for ten minutes
 * (`frontends/replays.ts`), so a delivery of an event already received, before a restart
 * too, is acknowledged (Bolt acknowledges an event before its middleware runs, and Slack
 * stops retrying) and passed to no listener. An event is remembered as it arrives, before
 * it is acted on: one under way when the daemon stops is not acted on by its retry
 * either; Slack's events here (a channel gone, the App Home opened) are said again by
 * the next one. When the database cannot say, the event is acted on: twice is better
 * than never.
 */
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { oneLine } from '../../channels/text.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { firstArrival, type RequestReplays } from '../replays.js';

/** The context property the receiver sets on a request it could not check for a replay. */
export const UNCHECKED = 'pipewatchUnchecked';

/** What the person is told when their request is not acted on for a failure of pipewatch's. */
export const FAILED = 'pipewatch could not do that just now; the error is in its log.';

/** The key an event is remembered by. */
export function eventKey(eventId: string): string {
  return `slack-event:${eventId}`;
}

function messageOf(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error)).slice(0, 300);
}

/** Answers a request acted on by no listener: a command or a click with `FAILED`. */
async function refuseUnchecked(args: AnyMiddlewareArgs & { ack?: unknown }): Promise<void> {
  const note = { response_type: 'ephemeral' as const, text: FAILED };
  if ('command' in args) {
    await args.ack(note);
    return;
  }
  if (typeof args.ack === 'function') await (args.ack as () => Promise<void>)();
  if ('action' in args && args.respond) await args.respond({ ...note, replace_original: false });
}

/** Global middleware passing on only checked requests and the first delivery of each event. */
export function onlyOnce(
  replays: RequestReplays,
  clock: Clock,
  log: Logger,
): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const { type, event_id: id } = args.body as { type?: unknown; event_id?: unknown };
    const event = type === 'event_callback';
    if (!event && args.context[UNCHECKED] === true) {
      await refuseUnchecked(args).catch((error: unknown) => {
        log.warn(`could not tell a Slack user their request failed: ${messageOf(error)}`);
      });
      return;
    }
    if (!event || typeof id !== 'string' || id === '') return args.next();
    const shown = oneLine(id).slice(0, 40);
    let fresh = true;
    try {
      fresh = await firstArrival(replays, eventKey(id), clock);
    } catch (error) {
      log.error(
        `could not tell whether Slack event ${shown} was received before, so it is acted on: ${messageOf(error)}`,
      );
    }
    if (fresh) return args.next();
    log.info(
      `Slack event ${shown} was received before (a retry): acknowledged, not acted on again`,
    );
  };
}
