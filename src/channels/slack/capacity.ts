/**
 * Capacity locations as a monospaced table in a mrkdwn code block: location, flow, OAC,
 * OPC and the rule's level (the threshold while firing, the recovery level once
 * resolved), as many rows as fit in one section, then how many more there were.
 */
import type { AlertPayload } from '../../alerts/payload.js';
import { clip, oneLine, quantity } from '../text.js';
import { escapeText } from './escape.js';

export type CapacityEntry = NonNullable<AlertPayload['capacity']>['locations'][number];

const LOCATION_WIDTH = 34;

/** `STATION 85 (1001234)`: the name, and the identifier when it adds something. */
export function locationLabel(l: CapacityEntry): string {
  const name = oneLine(l.location);
  const id = oneLine(l.identifier);
  if (id === '' || id === name) return name || '-';
  return name === '' ? id : `${name} (${id})`;
}

/** `10% of OPC` or `50,000`: a rule level in its unit. */
export function level(value: number, unit: CapacityEntry['unit']): string {
  return unit === 'percent' ? `${value}% of OPC` : quantity(value);
}

function oac(l: CapacityEntry): string {
  if (l.unit !== 'percent' || l.oac === null || !l.opc) return quantity(l.oac);
  return `${quantity(l.oac)} (${((l.oac / l.opc) * 100).toFixed(1)}%)`;
}

/** A code-block cell: escaped, no backtick that could close the block. */
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
  const resolved = state === 'resolved';
  const head = ['Location', 'Flow', 'OAC', 'OPC', resolved ? 'Clear above' : 'Threshold'];
  const rows = locations.map((l) => [
    clip(locationLabel(l), LOCATION_WIDTH),
    clip(oneLine(l.flow), 6),
    oac(l),
    quantity(l.opc),
    level(resolved ? l.clear_above : l.threshold, l.unit),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    cell(
      r
        .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
        .join('  ')
        .trimEnd(),
    );
  const reserve = 40;
  let body = line(head);
  let shown = 0;
  for (const r of rows) {
    const next = `${body}\n${line(r)}`;
    if (next.length + 8 + reserve > max) break;
    body = next;
    shown += 1;
  }
  const more = rows.length - shown;
  const tail = more > 0 ? `\n…and ${more} more location${more === 1 ? '' : 's'}` : '';
  return `\`\`\`\n${body}\n\`\`\`${tail}`;
}
