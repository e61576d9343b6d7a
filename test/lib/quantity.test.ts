import { describe, expect, it } from 'vitest';
import { grouped, quantity } from '../../src/lib/quantity.js';
import { seededRandom } from '../support/seeded-random.js';

describe('quantity', () => {
  it.each([
    [1_234_567, '1,234,567'],
    [50_000, '50,000'],
    [0, '0'],
    [-12_500, '-12,500'],
    [null, '-'],
  ])('%j reads %j', (value, text) => expect(quantity(value)).toBe(text));
});

describe('grouped', () => {
  it.each([
    [999, '999'],
    [1000, '1,000'],
    [1234.5, '1,234.5'],
    [0.0004, '0'],
    [-0.0004, '-0'],
    [-0, '-0'],
    [1.0005, '1.001'],
    [0.0005, '0.001'],
    [2.5e-3, '0.003'],
    [123_456_789.1239, '123,456,789.124'],
    [Number.MAX_SAFE_INTEGER, '9,007,199,254,740,991'],
    [1e21, '1,000,000,000,000,000,000,000'],
    [Number.POSITIVE_INFINITY, '∞'],
    [Number.NaN, 'NaN'],
  ])('%j reads %j', (value, text) => expect(grouped(value)).toBe(text));

  it("writes what toLocaleString('en-US') writes, over 20,000 numbers of every size", () => {
    const random = seededRandom(2026);
    const differ: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const scale = 10 ** Math.floor(random() * 22 - 4);
      const sign = random() < 0.2 ? -1 : 1;
      // Whole numbers, numbers of a few decimals, and ties at the third decimal.
      const kind = i % 3;
      const raw = sign * random() * scale;
      const value = kind === 0 ? Math.round(raw) : kind === 1 ? raw : Math.round(raw * 2000) / 2000;
      const expected = value.toLocaleString('en-US');
      if (grouped(value) !== expected) differ.push(`${value}: ${grouped(value)} ≠ ${expected}`);
    }
    expect(differ).toEqual([]);
  });
});
