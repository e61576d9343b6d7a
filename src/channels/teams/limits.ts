/**
 * Teams' size limit, and a card fitted to it. Teams refuses a message over about 28 KB
 * ("Request Entity too large"; Microsoft's Teams connector reference, "Message size
 * limit"), counted on what the workflow posts, which wraps the card in a little more:
 * so a card is kept to `CARD_BUDGET_BYTES` of UTF-8 JSON, 2 KB under the limit. What
 * gives way first is the notice's text (it says so, and the button opens the whole
 * notice), then the rows of a table or list; the headline, the facts and the link
 * never do.
 */
import type { TeamsMessage } from './card.js';

/** What Teams takes: 28 KB. */
export const TEAMS_MAX_BYTES = 28 * 1024;

/** What a card may weigh, serialised: room left for what the workflow adds. */
export const CARD_BUDGET_BYTES = 26 * 1024;

/** How much of what may give way a card shows. */
export interface Room {
  /** Characters of the notice's text. */
  text: number;
  /** Rows of a table, lines of a list. */
  rows: number;
}

/** How a card is made with a given room, and the room that shows everything. */
export type Layout = [build: (room: Room) => TeamsMessage, full: Room];

/** The message's size as sent: its JSON in UTF-8 bytes. */
export function messageBytes(message: TeamsMessage): number {
  return Buffer.byteLength(JSON.stringify(message), 'utf8');
}

/** The largest `n` in `[0, max]` for which `fits(n)`, given `fits(0)` and that it only turns false. */
function largest(max: number, fits: (n: number) => boolean): number {
  let [low, high] = [0, max];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * The message `build` makes with all of `full`, or, when that weighs more than
 * `budget`, with as much of the notice's text as fits, then as many rows. A message
 * still too heavy with neither is returned as it is: the channel refuses to send it.
 */
export function fitMessage(
  build: (room: Room) => TeamsMessage,
  full: Room,
  budget = CARD_BUDGET_BYTES,
): TeamsMessage {
  const whole = build(full);
  if (messageBytes(whole) <= budget) return whole;
  const fits = (room: Room) => messageBytes(build(room)) <= budget;
  if (fits({ text: 0, rows: full.rows })) {
    const text = largest(full.text, (n) => fits({ text: n, rows: full.rows }));
    return build({ text, rows: full.rows });
  }
  const rows = largest(full.rows, (n) => n === 0 || fits({ text: 0, rows: n }));
  return build({ text: 0, rows });
}
