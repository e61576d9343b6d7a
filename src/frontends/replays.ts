/**
 * The requests from Slack and Discord answered lately, remembered in the database
 * (`store.interactions`) so that a request captured on its way and sent again is refused
 * instead of acted on twice, after a restart too. Each platform signs a request with its
 * timestamp, accepted while it is within five minutes of the clock either way; a request
 * is remembered for ten minutes after it first arrived, which outlasts every copy of it
 * that could still be accepted. Keys say whose they are: a Discord interaction id, a
 * Slack signature (`slack:v0=…`), a Slack event id (`slack-event:Ev…`).
 */
import type { Clock } from '../lib/clock.js';
import { toUtcIso, type UtcIso } from '../lib/time.js';

/** How long a request is remembered: twice the five minutes a signature's timestamp is good for. */
export const REPLAY_MEMORY_MS = 10 * 60_000;

/** The requests answered lately, by key: `store.interactions` of the asynchronous store. */
export interface RequestReplays {
  /** Records that `key` arrived `at`; false when it had arrived before. Forgets those before `forgetBefore`. */
  firstTime(key: string, at: UtcIso, forgetBefore: UtcIso): Promise<boolean>;
}

/**
 * Whether `key` arrives now for the first time within `REPLAY_MEMORY_MS`; remembers it.
 * Throws what the database throws: the caller decides what a request it cannot check
 * gets.
 */
export function firstArrival(replays: RequestReplays, key: string, clock: Clock): Promise<boolean> {
  const now = clock.now();
  const forget = new Date(now.getTime() - REPLAY_MEMORY_MS);
  return replays.firstTime(key, toUtcIso(now), toUtcIso(forget));
}
