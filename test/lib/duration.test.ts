import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  formatTimeLeft,
  inTimeLeft,
  parseDuration,
} from '../../src/lib/duration.js';

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['10m', 600_000],
    ['24h', 86_400_000],
    ['2d', 172_800_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    [' 10M ', 600_000],
  ])('%s is %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '10', 'm', '10 m', '10mm', '-5m', 'ten minutes', '5m!'])('rejects %j', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );
});

describe('formatDuration', () => {
  it.each([
    [600_000, '10m'],
    [5_400_000, '1h30m'],
    [172_800_000, '2d'],
    [1_500, '1s500ms'],
    [0, '0s'],
  ])('%d ms is %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe('formatTimeLeft', () => {
  it.each([
    [5_400_000, '1 h 30 min'],
    [2_700_000, '45 min'],
    [183_600_000, '2 days 3 h'],
    [30_000, '30 s'],
    [86_400_000, '1 day'],
    [90_060_000, '1 day 1 h 1 min'],
    [3_600_000, '1 h'],
    [2_693_000, '44 min 53 s'],
    [60_000, '1 min'],
    [59_400, '59 s'],
    [3_599_600, '1 h'],
    // From an hour on, rounded to the minute: 1 h 30 min 29 s, then 1 h 30 min 30 s.
    [5_429_000, '1 h 30 min'],
    [5_430_000, '1 h 31 min'],
    [400, '0 s'],
    [0, '0 s'],
    [-90_000, '0 s'],
    [Number.NaN, '0 s'],
  ])('%d ms is %s', (ms, text) => expect(formatTimeLeft(ms)).toBe(text));
});

describe('inTimeLeft', () => {
  it.each([
    [7_800_000, 'in 2 h 10 min'],
    [1_800_000, 'in 30 min'],
    [500, 'in 1 s'],
    [499, 'now'],
    [0, 'now'],
    [-60_000, 'now'],
    [Number.NaN, 'now'],
  ])('%d ms is %s', (ms, text) => expect(inTimeLeft(ms)).toBe(text));
});
