import { describe, expect, it } from 'vitest';
import { quantity } from '../../src/lib/quantity.js';

describe('quantity', () => {
  it.each([
    [1_234_567, '1,234,567'],
    [50_000, '50,000'],
    [0, '0'],
    [-12_500, '-12,500'],
    [null, '-'],
  ])('%j reads %j', (value, text) => expect(quantity(value)).toBe(text));
});
