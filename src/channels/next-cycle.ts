/**
 * What an alert means for the next nomination: `Next: Evening cycle for gas day
 * 2026-11-21, noms due 6:00 PM CST (in 2 h 10 min)`. The cycle and its deadline come
 * from the NAESB table in `domain/gas-day.ts` (Central Clock Time); the deadline is
 * shown in the pipeline's zone; the time left is worked out from `now`, the send time,
 * in the words a reminder uses (`lib/duration.ts`). Every channel shows this one line
 * its own way, so they say the same.
 */
import type { AlertPayload } from '../alerts/payload.js';
import {
  addDays,
  GAS_DAY_ZONE,
  type GasDaySpan,
  gasDayOf,
  localDate,
  type NominationCycle,
  nextNominationCycle,
} from '../domain/gas-day.js';
import { isOpenEnded } from '../domain/open-ended.js';
import { inTimeLeft } from '../lib/duration.js';
import { zoneFormat } from '../lib/zone-format.js';

/**
 * The nomination cycle an alert sent at `now` points to, or undefined when it has none.
 *
 * - A capacity alert (low or recovered): the next cycle after `now`, of any gas day:
 *   the next chance to nominate around the capacity it reports.
 * - A notice (new or updated) with an effective time: the next cycle after `now` for a
 *   gas day the notice covers, from the gas day it takes effect through the gas day in
 *   which it ends. A notice for a gas day ahead names that day's next open cycle (its
 *   timely one, the day before it, however far away: the time left says how far); one
 *   in effect, the next cycle of today or of a later day it still covers; one without
 *   an end or with a placeholder end (`domain/open-ended.ts`), the next cycle at all.
 * - No line when it would mislead: a notice without an effective time (no gas day to
 *   speak of), one whose end is at or before `now` (no cycle can act on it any more),
 *   one whose gas days have no cycle left open (the last, ID3 of its last day, is due),
 *   and a deadline reminder, which is about its own deadline and says how long is left
 *   of that.
 */
export function nextCycleFor(
  p: AlertPayload,
  now: string | undefined,
): NominationCycle | undefined {
  if (now === undefined) return undefined;
  const at = new Date(now);
  if (Number.isNaN(at.getTime())) return undefined;
  if (p.kind === 'capacity' && p.capacity) return nextNominationCycle(at);
  const n = p.notice;
  if (p.kind !== 'notice' || !n?.effective_at) return undefined;
  const effective = Date.parse(n.effective_at);
  if (Number.isNaN(effective)) return undefined;
  const span: GasDaySpan = { from: gasDayOf(new Date(effective)) };
  const end = n.end_at === null || isOpenEnded(n) ? Number.NaN : Date.parse(n.end_at);
  if (!Number.isNaN(end)) {
    if (end <= at.getTime()) return undefined;
    // A notice ending at 9:00 a.m. ends with the gas day before; one ending at or before
    // it takes effect covers the gas day it takes effect in.
    span.through = gasDayOf(new Date(Math.max(end - 1, effective)));
  }
  return nextNominationCycle(at, span);
}

/**
 * `Evening cycle for gas day 2026-11-21, noms due 6:00 PM CST (in 2 h 10 min)`, the
 * line without its `Next:` label, for a channel that shows labels apart; undefined when
 * the alert has no next cycle (see `nextCycleFor`).
 */
export function nextCycleText(p: AlertPayload, now: string | undefined): string | undefined {
  const next = nextCycleFor(p, now);
  if (!next || now === undefined) return undefined;
  const left = inTimeLeft(next.dueAt.getTime() - Date.parse(now));
  return `${next.name} cycle for gas day ${next.gasDay}, noms due ${dueWhen(next.dueAt, new Date(now), p.zone)} (${left})`;
}

/** `Next: Evening cycle for gas day 2026-11-21, noms due 6:00 PM CST (in 2 h 10 min)`. */
export function nextCycleLine(p: AlertPayload, now: string | undefined): string | undefined {
  const text = nextCycleText(p, now);
  return text === undefined ? undefined : `${NEXT_CYCLE_LABEL}: ${text}`;
}

/** The label of the line, for a channel that shows its facts as label and value. */
export const NEXT_CYCLE_LABEL = 'Next';

const timeOfDay = zoneFormat({ hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
const dayAndTime = zoneFormat({
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});

/**
 * The deadline in `zone`: `6:00 PM CST` today, `1:00 PM CST tomorrow`, `Mon, Dec 14,
 * 1:00 PM CST` further off, today being the date of `now` there. A zone the platform
 * does not know (a catalog typo) shows Central Clock Time, in which the deadlines are
 * set, rather than losing the alert.
 */
function dueWhen(due: Date, now: Date, zone: string): string {
  let shown = zone;
  try {
    timeOfDay(shown);
  } catch {
    shown = GAS_DAY_ZONE;
  }
  const today = localDate(now, shown);
  const day = localDate(due, shown);
  const time = timeOfDay(shown).format(due);
  if (day === today) return time;
  return day === addDays(today, 1) ? `${time} tomorrow` : dayAndTime(shown).format(due);
}
