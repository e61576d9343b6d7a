/**
 * Capacity alerts as every channel shows them: alerts of one pipeline, cycle, gas day
 * and state merged (two rules naming one target still make one table), and the table
 * itself as aligned plain-text lines, which each channel escapes for its own markup.
 */
import { type AlertPayload, partOf } from '../alerts/payload.js';
import { quantity } from '../lib/quantity.js';
import { clip, oneLine } from './text.js';
import type { Alert } from './types.js';

/** One location of a capacity alert, with the rule's levels. */
export type CapacityEntry = NonNullable<AlertPayload['capacity']>['locations'][number];

/**
 * The alerts with the capacity alerts of one pipeline, cycle, gas day and state merged
 * into the first of them: its locations are theirs, in order, and its `rule` names every
 * rule (`transco-low-oac, station-85-watch`). Other alerts pass through as they are; the
 * order is that of each group's first alert. A merged alert's key is its first one's.
 */
export function mergeCapacity(alerts: readonly Alert[]): Alert[] {
  const out: Alert[] = [];
  const groups = new Map<string, { at: number; rules: string[]; parts: AlertPayload[] }>();
  for (const a of alerts) {
    const p = a.payload;
    if (p.kind !== 'capacity' || !p.capacity) {
      out.push(a);
      continue;
    }
    const c = p.capacity;
    const key = JSON.stringify([p.pipeline.slug, c.cycle, c.gas_day, p.state]);
    const group = groups.get(key);
    if (group) {
      group.parts.push(p);
      if (!group.rules.includes(p.rule)) group.rules.push(p.rule);
      continue;
    }
    groups.set(key, { at: out.length, rules: [p.rule], parts: [p] });
    out.push(a);
  }
  for (const { at, rules, parts } of groups.values()) {
    if (parts.length === 1) continue;
    const first = out[at];
    const c = partOf(first.payload, 'capacity');
    out[at] = {
      key: first.key,
      payload: {
        ...first.payload,
        rule: rules.join(', '),
        capacity: { ...c, locations: parts.flatMap((p) => p.capacity?.locations ?? []) },
      },
    };
  }
  return out;
}

/** The same for bare payloads. */
export function mergeCapacityPayloads(payloads: readonly AlertPayload[]): AlertPayload[] {
  return mergeCapacity(payloads.map((payload, i) => ({ key: String(i), payload }))).map(
    (a) => a.payload,
  );
}

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

/** OAC, with its share of OPC for a percentage rule: `30,000 (3.8%)`. */
export function oacShown(l: CapacityEntry): string {
  if (l.unit !== 'percent' || l.oac === null || !l.opc) return quantity(l.oac);
  return `${quantity(l.oac)} (${((l.oac / l.opc) * 100).toFixed(1)}%)`;
}

/** `…and 12 more locations`. */
export function moreLocations(count: number): string {
  return `…and ${count} more location${count === 1 ? '' : 's'}`;
}

/** Options of `capacityLines`. */
export interface TableOptions {
  /** Widest location label; longer ones are clipped. Default 34. */
  locationWidth?: number;
}

/**
 * The table as aligned lines, the heading first: location, flow, OAC, OPC and the rule's
 * level (the threshold while firing, the recovery level once resolved), and, when some
 * locations are repeats of an alert still firing, an `Alert` column saying `new` or
 * `repeat`. Upstream text is on one line and otherwise as given.
 */
export function capacityLines(
  locations: readonly CapacityEntry[],
  state: AlertPayload['state'],
  options: TableOptions = {},
): string[] {
  const [head = [], ...rows] = capacityCells(locations, state, options);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const left = (i: number) => i < 2 || i === 5;
  return [head, ...rows].map((r) =>
    r
      .map((c, i) => (left(i) ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * The same table as cells, the heading row first, for a channel that lays out tables
 * itself (a Teams card's `Table`): the columns and values of `capacityLines`, unaligned.
 */
export function capacityCells(
  locations: readonly CapacityEntry[],
  state: AlertPayload['state'],
  options: TableOptions = {},
): string[][] {
  const width = options.locationWidth ?? 34;
  const resolved = state === 'resolved';
  const repeats = !resolved && locations.some((l) => l.repeat === true);
  const head = ['Location', 'Flow', 'OAC', 'OPC', resolved ? 'Clear above' : 'Threshold'];
  if (repeats) head.push('Alert');
  const rows = locations.map((l) => {
    const row = [
      clip(locationLabel(l), width),
      clip(oneLine(l.flow), 6),
      oacShown(l),
      quantity(l.opc),
      level(resolved ? l.clear_above : l.threshold, l.unit),
    ];
    if (repeats) row.push(l.repeat ? 'repeat' : 'new');
    return row;
  });
  return [head, ...rows];
}

/**
 * The heading and as many rows as fit in `max` characters once each line is passed
 * through `cell`, joined by newlines, and how many rows were left out.
 */
export function fitLines(
  lines: readonly string[],
  max: number,
  cell: (line: string) => string,
): { text: string; hidden: number } {
  const [head = '', ...rows] = lines;
  let text = cell(head);
  let shown = 0;
  for (const r of rows) {
    const next = `${text}\n${cell(r)}`;
    if (next.length > max) break;
    text = next;
    shown += 1;
  }
  return { text, hidden: rows.length - shown };
}
