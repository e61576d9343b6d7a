import { describe, expect, it } from 'vitest';
import {
  addDays,
  CYCLE_NAMES,
  cyclePostedAt,
  gasDayOf,
  isDate,
  localDate,
  NOMINATION_CYCLES,
  nextNominationCycle,
  nominationsDueAt,
  zonedTime,
} from '../../src/domain/gas-day.js';

const iso = (d: Date) => d.toISOString();

describe('zonedTime', () => {
  it('converts Central standard and daylight time', () => {
    expect(iso(zonedTime('2026-01-15', 9, 0, 'America/Chicago'))).toBe('2026-01-15T15:00:00.000Z');
    expect(iso(zonedTime('2026-07-15', 9, 0, 'America/Chicago'))).toBe('2026-07-15T14:00:00.000Z');
  });

  it('handles zones without daylight saving and other offsets', () => {
    expect(iso(zonedTime('2026-07-15', 12, 30, 'America/Phoenix'))).toBe(
      '2026-07-15T19:30:00.000Z',
    );
    expect(iso(zonedTime('2026-07-15', 0, 0, 'UTC'))).toBe('2026-07-15T00:00:00.000Z');
    expect(iso(zonedTime('2026-12-31', 23, 59, 'America/Los_Angeles'))).toBe(
      '2027-01-01T07:59:00.000Z',
    );
  });

  it('moves a time skipped by spring-forward past the gap (2026-03-08)', () => {
    expect(iso(zonedTime('2026-03-08', 1, 59, 'America/Chicago'))).toBe('2026-03-08T07:59:00.000Z');
    expect(iso(zonedTime('2026-03-08', 2, 30, 'America/Chicago'))).toBe('2026-03-08T08:30:00.000Z');
    expect(iso(zonedTime('2026-03-08', 3, 0, 'America/Chicago'))).toBe('2026-03-08T08:00:00.000Z');
  });

  it('takes the earlier instant for a time repeated by fall-back (2026-11-01)', () => {
    expect(iso(zonedTime('2026-11-01', 1, 30, 'America/Chicago'))).toBe('2026-11-01T06:30:00.000Z');
    expect(iso(zonedTime('2026-11-01', 2, 0, 'America/Chicago'))).toBe('2026-11-01T08:00:00.000Z');
  });

  it('rejects dates that do not exist', () => {
    expect(() => zonedTime('2026-02-30', 0, 0, 'America/Chicago')).toThrow(RangeError);
    expect(() => zonedTime('26-02-01', 0, 0, 'America/Chicago')).toThrow(RangeError);
  });
});

describe('gasDayOf', () => {
  it('starts the gas day at 09:00 Central', () => {
    expect(gasDayOf(new Date('2026-11-20T14:59:59Z'))).toBe('2026-11-19');
    expect(gasDayOf(new Date('2026-11-20T15:00:00Z'))).toBe('2026-11-20');
    expect(gasDayOf(new Date('2026-07-20T13:59:59Z'))).toBe('2026-07-19');
    expect(gasDayOf(new Date('2026-07-20T14:00:00Z'))).toBe('2026-07-20');
  });

  it('is exact on both 2026 transition days', () => {
    expect(gasDayOf(new Date('2026-03-08T14:59:00Z'))).toBe('2026-03-08');
    expect(gasDayOf(new Date('2026-03-08T14:00:00Z'))).toBe('2026-03-08');
    expect(gasDayOf(new Date('2026-03-08T13:59:00Z'))).toBe('2026-03-07');
    expect(gasDayOf(new Date('2026-11-01T14:59:00Z'))).toBe('2026-10-31');
    expect(gasDayOf(new Date('2026-11-01T15:00:00Z'))).toBe('2026-11-01');
  });

  it('covers the 23- and 25-hour gas days around the transitions', () => {
    const start = cyclePostedAt('2026-03-08', 'id1').getTime();
    expect(gasDayOf(new Date(start))).toBe('2026-03-08');
    const march7Start = zonedTime('2026-03-07', 9, 0, 'America/Chicago').getTime();
    const march8Start = zonedTime('2026-03-08', 9, 0, 'America/Chicago').getTime();
    expect(march8Start - march7Start).toBe(23 * 3_600_000);
    const oct31Start = zonedTime('2026-10-31', 9, 0, 'America/Chicago').getTime();
    const nov1Start = zonedTime('2026-11-01', 9, 0, 'America/Chicago').getTime();
    expect(nov1Start - oct31Start).toBe(25 * 3_600_000);
  });
});

describe('cyclePostedAt', () => {
  it('lists the cycles in posting order', () => {
    expect(NOMINATION_CYCLES).toEqual(['timely', 'evening', 'id1', 'id2', 'id3']);
    const times = NOMINATION_CYCLES.map((c) => cyclePostedAt('2026-11-20', c).getTime());
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('follows the NAESB timeline in Central Standard Time', () => {
    const at = (c: (typeof NOMINATION_CYCLES)[number]) => iso(cyclePostedAt('2026-11-20', c));
    expect(at('timely')).toBe('2026-11-19T23:00:00.000Z');
    expect(at('evening')).toBe('2026-11-20T03:00:00.000Z');
    expect(at('id1')).toBe('2026-11-20T19:00:00.000Z');
    expect(at('id2')).toBe('2026-11-20T23:30:00.000Z');
    expect(at('id3')).toBe('2026-11-21T04:00:00.000Z');
  });

  it('follows Central Daylight Time in summer', () => {
    expect(iso(cyclePostedAt('2026-07-01', 'timely'))).toBe('2026-06-30T22:00:00.000Z');
    expect(iso(cyclePostedAt('2026-07-01', 'id3'))).toBe('2026-07-02T03:00:00.000Z');
  });

  it('is DST-correct across spring-forward (2026-03-08)', () => {
    expect(iso(cyclePostedAt('2026-03-08', 'timely'))).toBe('2026-03-07T23:00:00.000Z');
    expect(iso(cyclePostedAt('2026-03-08', 'evening'))).toBe('2026-03-08T03:00:00.000Z');
    expect(iso(cyclePostedAt('2026-03-08', 'id1'))).toBe('2026-03-08T18:00:00.000Z');
    expect(iso(cyclePostedAt('2026-03-09', 'timely'))).toBe('2026-03-08T22:00:00.000Z');
  });

  it('is DST-correct across fall-back (2026-11-01)', () => {
    expect(iso(cyclePostedAt('2026-11-01', 'timely'))).toBe('2026-10-31T22:00:00.000Z');
    expect(iso(cyclePostedAt('2026-11-01', 'evening'))).toBe('2026-11-01T02:00:00.000Z');
    expect(iso(cyclePostedAt('2026-11-01', 'id1'))).toBe('2026-11-01T19:00:00.000Z');
    expect(iso(cyclePostedAt('2026-11-01', 'id3'))).toBe('2026-11-02T04:00:00.000Z');
  });
});

describe('dates', () => {
  it('adds days across month, year and DST boundaries', () => {
    expect(addDays('2026-03-07', 1)).toBe('2026-03-08');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2026-11-20', -45)).toBe('2026-10-06');
  });

  it('finds the local calendar date of an instant', () => {
    expect(localDate(new Date('2026-11-21T05:59:00Z'), 'America/Chicago')).toBe('2026-11-20');
    expect(localDate(new Date('2026-11-21T06:00:00Z'), 'America/Chicago')).toBe('2026-11-21');
    expect(localDate(new Date('2026-03-08T07:59:00Z'), 'America/Los_Angeles')).toBe('2026-03-07');
    expect(localDate(new Date('2026-03-08T08:00:00Z'), 'America/Los_Angeles')).toBe('2026-03-08');
  });

  it('recognises real calendar dates only', () => {
    expect(isDate('2026-11-20')).toBe(true);
    expect(isDate('2026-02-29')).toBe(false);
    expect(isDate('2026-1-2')).toBe(false);
    expect(isDate('')).toBe(false);
  });
});

describe('nextNominationCycle', () => {
  const next = (now: string, span?: { from?: string; through?: string }) => {
    const c = nextNominationCycle(new Date(now), span);
    return c && `${c.name} ${c.gasDay} ${iso(c.dueAt)}`;
  };

  it('follows the NAESB deadlines through one ordinary day, deadlines of two gas days interleaved', () => {
    // Fri 2026-11-20, CST (UTC-6).
    expect(next('2026-11-20T14:00:00Z')).toBe('Intraday 1 2026-11-20 2026-11-20T16:00:00.000Z');
    expect(next('2026-11-20T18:30:00Z')).toBe('Timely 2026-11-21 2026-11-20T19:00:00.000Z');
    expect(next('2026-11-20T19:30:00Z')).toBe('Intraday 2 2026-11-20 2026-11-20T20:30:00.000Z');
    expect(next('2026-11-20T21:00:00Z')).toBe('Evening 2026-11-21 2026-11-21T00:00:00.000Z');
    expect(next('2026-11-21T00:30:00Z')).toBe('Intraday 3 2026-11-20 2026-11-21T01:00:00.000Z');
    expect(next('2026-11-21T02:00:00Z')).toBe('Intraday 1 2026-11-21 2026-11-21T16:00:00.000Z');
  });

  it('counts a cycle due at this very instant as closed, and the next one as next', () => {
    expect(next('2026-11-20T16:00:00Z')).toBe('Timely 2026-11-21 2026-11-20T19:00:00.000Z');
    expect(next('2026-11-20T15:59:59.999Z')).toBe('Intraday 1 2026-11-20 2026-11-20T16:00:00.000Z');
    expect(next('2026-11-20T19:00:00Z')).toBe('Intraday 2 2026-11-20 2026-11-20T20:30:00.000Z');
    expect(next('2026-11-20T20:30:00Z')).toBe('Evening 2026-11-21 2026-11-21T00:00:00.000Z');
    expect(next('2026-11-21T00:00:00Z')).toBe('Intraday 3 2026-11-20 2026-11-21T01:00:00.000Z');
    expect(next('2026-11-21T01:00:00Z')).toBe('Intraday 1 2026-11-21 2026-11-21T16:00:00.000Z');
  });

  it('crosses spring-forward (2026-03-08): the night is an hour shorter', () => {
    // ID3 of gas day Mar 7 at 7:00 PM CST closes; ID1 of Mar 8 is at 10:00 AM CDT, 14 h on.
    expect(next('2026-03-08T01:00:00Z')).toBe('Intraday 1 2026-03-08 2026-03-08T15:00:00.000Z');
    // Timely for Mar 8 was due Mar 7 at 1:00 PM CST; for Mar 9, Mar 8 at 1:00 PM CDT.
    expect(next('2026-03-07T18:59:00Z')).toBe('Timely 2026-03-08 2026-03-07T19:00:00.000Z');
    expect(next('2026-03-08T15:00:00Z')).toBe('Timely 2026-03-09 2026-03-08T18:00:00.000Z');
    expect(next('2026-03-08T18:00:00Z')).toBe('Intraday 2 2026-03-08 2026-03-08T19:30:00.000Z');
  });

  it('crosses fall-back (2026-11-01): the night is an hour longer', () => {
    // ID3 of gas day Oct 31 at 7:00 PM CDT closes; ID1 of Nov 1 is at 10:00 AM CST, 16 h on.
    expect(next('2026-11-01T00:00:00Z')).toBe('Intraday 1 2026-11-01 2026-11-01T16:00:00.000Z');
    expect(next('2026-10-31T17:59:00Z')).toBe('Timely 2026-11-01 2026-10-31T18:00:00.000Z');
    expect(next('2026-11-01T16:00:00Z')).toBe('Timely 2026-11-02 2026-11-01T19:00:00.000Z');
    // 1:30 AM Central happens twice that night; the next deadline is the same from both.
    expect(next('2026-11-01T06:30:00Z')).toBe('Intraday 1 2026-11-01 2026-11-01T16:00:00.000Z');
    expect(next('2026-11-01T07:30:00Z')).toBe('Intraday 1 2026-11-01 2026-11-01T16:00:00.000Z');
  });

  it('keeps to the gas days of a span', () => {
    // A notice for gas day Nov 21 alone, read on Nov 20 after 1:00 PM: its evening cycle.
    const only21 = { from: '2026-11-21', through: '2026-11-21' };
    expect(next('2026-11-20T19:30:00Z', only21)).toBe(
      'Evening 2026-11-21 2026-11-21T00:00:00.000Z',
    );
    expect(next('2026-11-21T02:00:00Z', only21)).toBe(
      'Intraday 1 2026-11-21 2026-11-21T16:00:00.000Z',
    );
    // Nothing left once its ID3 is due.
    expect(next('2026-11-22T01:00:00Z', only21)).toBeUndefined();
    // A gas day weeks ahead: its timely cycle, the day before it.
    expect(next('2026-11-20T18:30:00Z', { from: '2026-12-15' })).toBe(
      'Timely 2026-12-15 2026-12-14T19:00:00.000Z',
    );
    // A span that began long ago: the next deadline after now.
    expect(next('2026-11-20T18:30:00Z', { from: '2020-01-01' })).toBe(
      'Timely 2026-11-21 2026-11-20T19:00:00.000Z',
    );
    // Through today only: tomorrow's timely does not count.
    expect(next('2026-11-20T18:30:00Z', { through: '2026-11-20' })).toBe(
      'Intraday 2 2026-11-20 2026-11-20T20:30:00.000Z',
    );
  });

  it('has no next cycle for an instant that is not one, nor past year 9999', () => {
    expect(nextNominationCycle(new Date(Number.NaN))).toBeUndefined();
    expect(next('2026-11-20T18:30:00Z', { from: '9999-12-31' })).toBe(
      'Timely 9999-12-31 9999-12-30T19:00:00.000Z',
    );
    expect(next('9999-12-31T23:00:00Z')).toBe('Intraday 3 9999-12-31 +010000-01-01T01:00:00.000Z');
    expect(next('+010000-01-01T02:00:00Z')).toBeUndefined();
    expect(next('2026-11-20T18:30:00Z', { from: '+275760-09-13' })).toBeUndefined();
    expect(next('2026-11-20T18:30:00Z', { from: 'garbage' })).toBeUndefined();
  });

  it('names every cycle, with its deadline in Central Clock Time', () => {
    const due = NOMINATION_CYCLES.map(
      (c) => `${CYCLE_NAMES[c]} ${iso(nominationsDueAt('2026-07-15', c))}`,
    );
    expect(due).toEqual([
      'Timely 2026-07-14T18:00:00.000Z',
      'Evening 2026-07-14T23:00:00.000Z',
      'Intraday 1 2026-07-15T15:00:00.000Z',
      'Intraday 2 2026-07-15T19:30:00.000Z',
      'Intraday 3 2026-07-16T00:00:00.000Z',
    ]);
  });
});
