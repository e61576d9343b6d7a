/**
 * Capacity locations as a monospaced table in a mrkdwn code block (see `../capacity.ts`
 * for its columns), as many rows as fit in one section, then how many more there were.
 */
import type { AlertPayload } from '../../alerts/payload.js';
import { type CapacityEntry, capacityLines, fitLines, moreLocations } from '../capacity.js';
import { escapeText } from './escape.js';

export { type CapacityEntry, level, locationLabel } from '../capacity.js';

/** Room kept for the fences and the `…and N more locations` line. */
const RESERVE = 40;

/** A code-block line: escaped, no backtick that could close the block. */
function cell(text: string): string {
  return escapeText(text).replace(/`/g, '\u02cb');
}

/**
 * The table as mrkdwn (a code block), at most `max` characters: rows that do not fit
 * are counted in a `…and N more locations` line after the block.
 */
export function capacityTable(
  locations: readonly CapacityEntry[],
  state: AlertPayload['state'],
  max: number,
): string {
  const { text, hidden } = fitLines(capacityLines(locations, state), max - RESERVE, cell);
  const tail = hidden > 0 ? `\n${moreLocations(hidden)}` : '';
  return `\`\`\`\n${text}\n\`\`\`${tail}`;
}
