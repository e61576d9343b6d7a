/**
 * The gas day and the NAESB nomination cycles. Gas scheduling runs on Central Clock Time
 * whatever the pipeline's own zone, so every schedule in pipewatch derives from here.
 */
import { zoneFormat } from '../lib/zone-format.js';

/** A standard NAESB nomination cycle (FERC Order 809). */
export type Cycle = 'timely' | 'evening' | 'id1' | 'id2' | 'id3';

/** The cycles in the order their scheduled quantities are posted for one gas day. */
export const NOMINATION_CYCLES: readonly Cycle[] = ['timely', 'evening', 'id1', 'id2', 'id3'];

/** The zone of Central Clock Time, in which the gas day and the cycles are defined. */
export const GAS_DAY_ZONE = 'America/Chicago';

const GAS_DAY_START_HOUR = 9;
const DAY_MS = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** When each cycle's scheduled quantities are posted: days relative to the gas day, h, m. */
const POSTING: Record<Cycle, readonly [number, number, number]> = {
  timely: [-1, 17, 0],
  evening: [-1, 21, 0],
  id1: [0, 13, 0],
  id2: [0, 17, 30],
  id3: [0, 22, 0],
};

/**
 * When nominations for each cycle are due (NAESB WGQ, FERC Order 809), Central Clock
 * Time: days relative to the gas day, h, m. A nomination counts only if it is in before
 * the minute, so a cycle due at this instant is already closed.
 */
const NOMINATIONS_DUE: Record<Cycle, readonly [number, number, number]> = {
  timely: [-1, 13, 0],
  evening: [-1, 18, 0],
  id1: [0, 10, 0],
  id2: [0, 14, 30],
  id3: [0, 19, 0],
};

/** What schedulers call each cycle: `Timely`, `Intraday 1`. */
export const CYCLE_NAMES: Record<Cycle, string> = {
  timely: 'Timely',
  evening: 'Evening',
  id1: 'Intraday 1',
  id2: 'Intraday 2',
  id3: 'Intraday 3',
};

/** Wall-clock parts (24-hour) in a zone, from which its offset is worked out. */
const wallClock = zoneFormat({
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Offsets by zone and 15-minute bucket: every zone's transitions since 1972 fall on one. */
const offsetCache = new Map<string, Map<number, number>>();
const BUCKET_MS = 900_000;

function offsetMs(instantMs: number, zone: string): number {
  let zoneCache = offsetCache.get(zone);
  if (!zoneCache || zoneCache.size > 50_000) {
    zoneCache = new Map();
    offsetCache.set(zone, zoneCache);
  }
  const bucket = Math.floor(instantMs / BUCKET_MS);
  const cached = zoneCache.get(bucket);
  if (cached !== undefined) return cached;
  const at = bucket * BUCKET_MS;
  const parts: Record<string, number> = {};
  for (const p of wallClock(zone).formatToParts(new Date(at))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  const offset = Date.UTC(year, month - 1, day, hour, minute, second) - at;
  zoneCache.set(bucket, offset);
  return offset;
}

function parseDate(date: string): [number, number, number] {
  const m = DATE_RE.exec(date);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date) {
    throw new RangeError(`invalid date '${date}': expected YYYY-MM-DD`);
  }
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** Whether a string is a real calendar date in `YYYY-MM-DD` form. */
export function isDate(value: string): boolean {
  try {
    parseDate(value);
    return true;
  } catch {
    return false;
  }
}

/** The date `days` calendar days after `date` (negative for before), both `YYYY-MM-DD`. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = parseDate(date);
  return new Date(Date.UTC(y, m - 1, d) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The instant at which the wall clock in `zone` shows `date hh:mm`. Times skipped by a
 * spring-forward transition resolve to the same distance past the transition, and times
 * repeated by a fall-back transition resolve to the earlier instant (like Temporal's
 * 'compatible' disambiguation), so a schedule never loses or doubles an event.
 */
export function zonedTime(date: string, hh: number, mm: number, zone: string): Date {
  const [y, m, d] = parseDate(date);
  const local = Date.UTC(y, m - 1, d, hh, mm);
  const before = offsetMs(local - DAY_MS, zone);
  const after = offsetMs(local + DAY_MS, zone);
  const valid = [local - before, local - after].filter((t) => t + offsetMs(t, zone) === local);
  if (valid.length === 0) return new Date(local - before);
  return new Date(Math.min(...valid));
}

/** The calendar date (`YYYY-MM-DD`) an instant falls on in a zone. */
export function localDate(instant: Date, zone: string): string {
  const ms = instant.getTime();
  return new Date(ms + offsetMs(ms, zone)).toISOString().slice(0, 10);
}

/** The gas day (`YYYY-MM-DD`, named by its starting date) that contains an instant. */
export function gasDayOf(instant: Date): string {
  const wall = instant.getTime() + offsetMs(instant.getTime(), GAS_DAY_ZONE);
  return new Date(wall - GAS_DAY_START_HOUR * 3_600_000).toISOString().slice(0, 10);
}

/** The instant at which a cycle's scheduled quantities for a gas day are posted. */
export function cyclePostedAt(gasDay: string, cycle: Cycle): Date {
  const [days, hh, mm] = POSTING[cycle];
  return zonedTime(addDays(gasDay, days), hh, mm, GAS_DAY_ZONE);
}

/** Whether `name` is one of the standard nomination cycles. */
export function isNominationCycle(name: string): name is Cycle {
  return (NOMINATION_CYCLES as readonly string[]).includes(name);
}

/**
 * Where a capacity cycle stands in the order its information arrives: the instant its
 * scheduled quantities are posted, as `YYYY-MM-DDTHH:MM:SSZ`, so that keys compare as
 * text. Tomorrow's timely and evening cycles are posted before today's ID2 and ID3, and
 * what was posted last is the freshest word on a location. A cycle whose posting time is
 * not known (a name other than the five standard ones) counts as posted when its gas day
 * starts, 9:00 a.m. Central.
 */
export function cycleOrderKey(gasDay: string, cycle: string): string {
  const at = isNominationCycle(cycle)
    ? cyclePostedAt(gasDay, cycle)
    : zonedTime(gasDay, GAS_DAY_START_HOUR, 0, GAS_DAY_ZONE);
  return `${at.toISOString().slice(0, 19)}Z`;
}

/** The instant by which nominations for a cycle of a gas day must be in. */
export function nominationsDueAt(gasDay: string, cycle: Cycle): Date {
  const [days, hh, mm] = NOMINATIONS_DUE[cycle];
  return zonedTime(addDays(gasDay, days), hh, mm, GAS_DAY_ZONE);
}

/** A nomination cycle still open: which, for which gas day, and until when. */
export interface NominationCycle {
  cycle: Cycle;
  /** `Timely`, `Intraday 2`. */
  name: string;
  /** `YYYY-MM-DD`, the gas day the nominations are for. */
  gasDay: string;
  /** The nomination deadline. */
  dueAt: Date;
}

/** Which gas days' cycles count, both ends included; either end open when not given. */
export interface GasDaySpan {
  from?: string | undefined;
  through?: string | undefined;
}

/**
 * The next nomination deadline strictly after `now`, for a gas day within `span` (any
 * gas day when not given): what a scheduler can still act on. Deadlines of two gas days
 * interleave (tomorrow's timely at 1:00 p.m. comes before today's ID2 at 2:30 p.m.), so
 * the earliest one wins, not the first of a gas day. A cycle due exactly at `now` has
 * closed. Undefined when no cycle of the span is still open (the span is over), or
 * when its gas days lie past what a `YYYY-MM-DD` date can name (a placeholder time in
 * year 9999): a time from upstream never makes this throw.
 */
export function nextNominationCycle(now: Date, span: GasDaySpan = {}): NominationCycle | undefined {
  const at = now.getTime();
  if (Number.isNaN(at)) return undefined;
  if ([span.from, span.through].some((d) => d !== undefined && !isDate(d))) return undefined;
  const current = gasDayOf(now);
  // No gas day before `current` has a deadline left (its last, ID3, is due the evening
  // before `current` begins). `now` is before the day after `first` begins, so that
  // day's ID1 is still ahead, and it comes before every deadline of any later gas day:
  // `first` and the day after hold the earliest open deadline.
  const first = span.from !== undefined && span.from > current ? span.from : current;
  let next: NominationCycle | undefined;
  for (const gasDay of [first, addDays(first, 1)]) {
    if (!isDate(gasDay) || (span.through !== undefined && gasDay > span.through)) break;
    for (const cycle of NOMINATION_CYCLES) {
      const dueAt = nominationsDueAt(gasDay, cycle);
      if (dueAt.getTime() <= at || (next && dueAt >= next.dueAt)) continue;
      next = { cycle, name: CYCLE_NAMES[cycle], gasDay, dueAt };
    }
  }
  return next;
}
