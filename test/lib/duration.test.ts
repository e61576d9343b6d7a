import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/lib/duration.js';

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
