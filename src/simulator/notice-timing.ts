/**
 * When a generated notice takes effect, ends and needs a response, by kind: OFOs and
 * constraints start with the next gas day, maintenance is announced days ahead, capacity
 * releases carry a bid deadline, and some end dates are open-ended placeholders.
 */
import { addDays, GAS_DAY_ZONE, gasDayOf, localDate, zonedTime } from '../domain/gas-day.js';
import type { NoticeKind } from './notice-labels.js';
import type { Random } from './random.js';
import { DAY, HOUR, MINUTE } from './sim-time.js';

/** Placeholder end dates pipelines use for "until further notice". */
export const OPEN_ENDED = ['9000-12-31 00:00:00', '2049-12-31 23:59:00'] as const;

/** The dates of a notice; `end` is ms, a placeholder text, or null for none. */
export interface NoticeTiming {
  effectiveAt: number | null;
  end: number | string | null;
  responseAt: number | null;
}

function nextGasDayStart(at: number): number {
  const next = addDays(gasDayOf(new Date(at)), 1);
  return zonedTime(next, 9, 0, GAS_DAY_ZONE).getTime();
}

function localAt(at: number, days: number, hh: number, zone: string): number {
  return zonedTime(localDate(new Date(at + days * DAY), zone), hh, 0, zone).getTime();
}

/** The dates of the first notice of a chain posted at `at`. */
export function initialTiming(
  kind: NoticeKind,
  at: number,
  zone: string,
  rng: Random,
): NoticeTiming {
  const gasDay = nextGasDayStart(at);
  switch (kind) {
    case 'ofo':
      return {
        effectiveAt: rng.chance(0.6) ? gasDay : at,
        end: rng.pick([null, OPEN_ENDED[0], gasDay + DAY]),
        responseAt: rng.chance(0.4) ? at + rng.int(2, 10) * HOUR : null,
      };
    case 'force-majeure': {
      const effectiveAt = at - rng.int(0, 6) * HOUR;
      return {
        effectiveAt,
        end: rng.pick([null, OPEN_ENDED[1], effectiveAt + rng.int(1, 7) * DAY]),
        responseAt: null,
      };
    }
    case 'constraint':
      return {
        effectiveAt: rng.chance(0.8) ? gasDay : at,
        end: gasDay + DAY,
        responseAt: rng.chance(0.15) ? at + rng.int(1, 4) * HOUR : null,
      };
    case 'curtailment':
      return { effectiveAt: gasDay, end: gasDay + rng.int(1, 3) * DAY, responseAt: null };
    case 'maintenance': {
      const effectiveAt = localAt(at, rng.int(1, 20), 7, zone);
      return { effectiveAt, end: effectiveAt + rng.int(10, 120) * HOUR, responseAt: null };
    }
    case 'capacity-release': {
      const effectiveAt = gasDay + rng.int(0, 5) * DAY;
      return {
        effectiveAt,
        end: effectiveAt + rng.int(1, 12) * 30 * DAY,
        responseAt: rng.chance(0.9) ? at + rng.int(6, 72) * HOUR : null,
      };
    }
    case 'system-status': {
      const effectiveAt = localAt(at, rng.int(1, 7), 18, zone);
      return { effectiveAt, end: effectiveAt + 4 * HOUR, responseAt: null };
    }
    case 'gas-quality':
      return { effectiveAt: at, end: rng.chance(0.5) ? null : at + 2 * DAY, responseAt: null };
    case 'operational-alert':
      return { effectiveAt: at, end: rng.chance(0.5) ? gasDay + DAY : null, responseAt: null };
    case 'critical-period':
      return { effectiveAt: gasDay, end: rng.pick([null, OPEN_ENDED[0]]), responseAt: null };
    case 'other':
      return {
        effectiveAt: rng.chance(0.3) ? null : localAt(at, rng.int(1, 30), 9, zone),
        end: null,
        responseAt: null,
      };
  }
}

/**
 * The dates of a superseding notice: a chain whose dates have passed moves to the current
 * gas day, the end may extend and a response deadline may move.
 */
export function supersedeTiming(prev: NoticeTiming, at: number, rng: Random): NoticeTiming {
  const lapsed = typeof prev.end === 'number' && prev.end <= at;
  const shift = lapsed ? Math.ceil((at - (prev.end as number)) / DAY) * DAY : 0;
  let end = typeof prev.end === 'number' ? prev.end + shift : prev.end;
  if (typeof end === 'number' && rng.chance(0.5)) end += DAY;
  const effectiveAt = prev.effectiveAt === null ? null : prev.effectiveAt + shift;
  const responseAt =
    prev.responseAt === null
      ? null
      : Math.max(at + HOUR, prev.responseAt + rng.int(-3, 12) * HOUR + rng.int(0, 3) * 15 * MINUTE);
  return { effectiveAt, end, responseAt };
}

/** How long before the service saw it the pipeline says a notice was posted. */
export function postingLag(rng: Random): number {
  const bucket = rng.next();
  if (bucket < 0.6) return rng.int(0, 120) * 1000;
  if (bucket < 0.9) return rng.int(2, 10) * MINUTE;
  return rng.int(10, 40) * MINUTE;
}
