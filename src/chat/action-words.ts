/**
 * The words a button carries after its kind, as every platform writes and reads them:
 * `remind:<notice id>`, `remove:subscription|silence:<id>`, and a mute's pipeline and
 * hours. A platform wraps them in its own envelope (Slack's value, Discord's custom id)
 * and decides only what does not fit the envelope; what an action means and what a
 * click may ask for are decided here once, so no platform accepts what another refuses.
 */
import type { ChatAction } from './types.js';

/** How long the Mute menu offers to mute a pipeline for, in hours. */
export const MUTE_HOURS = [1, 4, 24] as const;

/** The longest mute a click may ask for: 30 days. */
const MAX_MUTE_HOURS = 720;

/** An hour, in the milliseconds a mute lasts for. */
export const HOUR_MS = 3_600_000;

/** A notice's or a list item's id as a button carries it. */
const ACTION_ID = /^[1-9][0-9]{0,14}$/;

/**
 * A pipeline's slug as a button carries it, at most `maxLength` characters: as long as
 * the platform's envelope leaves room for.
 */
export function slugPattern(maxLength: number): RegExp {
  return new RegExp(`^[a-z0-9][a-z0-9_.-]{0,${maxLength - 1}}$`, 'i');
}

/** A mute's length from the hours a click chose (`"4"`): undefined unless 1 to 720 whole hours. */
export function muteForMs(hours: string): number | undefined {
  if (!/^[1-9][0-9]{0,3}$/.test(hours)) return undefined;
  const h = Number(hours);
  return h > MAX_MUTE_HOURS ? undefined : h * HOUR_MS;
}

/** The words after the kind of a `remind` or a `remove`: `12`, `subscription:3`. */
export function listActionWords(
  action: Extract<ChatAction, { kind: 'remind' | 'remove' }>,
): string {
  return action.kind === 'remind' ? String(action.noticeId) : `${action.what}:${action.id}`;
}

/**
 * A `remind` or a `remove` from its kind and the words after it (split on `:`);
 * undefined when they do not read as one.
 */
export function listActionOf(
  kind: string | undefined,
  rest: readonly string[],
): ChatAction | undefined {
  if (kind === 'remind' && rest.length === 1 && ACTION_ID.test(rest[0])) {
    return { kind: 'remind', noticeId: Number(rest[0]) };
  }
  if (kind === 'remove' && rest.length === 2) {
    const [what, id = ''] = rest;
    if ((what === 'subscription' || what === 'silence') && ACTION_ID.test(id)) {
      return { kind: 'remove', what, id: Number(id) };
    }
  }
  return undefined;
}
