import { describe, expect, it } from 'vitest';
import { formatByteSize, parseByteSize } from '../../src/lib/byte-size.js';

describe('byte sizes', () => {
  it.each([
    ['20MB', 20_000_000],
    ['20 mb', 20_000_000],
    ['512KB', 512_000],
    ['1.5GB', 1_500_000_000],
    ['65536B', 65_536],
    ['1MiB', 1_048_576],
    ['64KiB', 65_536],
  ])('%j is %i bytes', (text, bytes) => expect(parseByteSize(text)).toBe(bytes));

  it.each(['20', 'MB', '20 TB', '-1MB', '20MBs', ''])('%j is not a size', (text) =>
    expect(parseByteSize(text)).toBeUndefined(),
  );

  it('formats sizes for messages', () => {
    expect([20_000_000, 1_500_000, 512_000, 900, 200_000_000].map(formatByteSize)).toEqual([
      '20 MB',
      '1.5 MB',
      '512 KB',
      '900 B',
      '200 MB',
    ]);
  });
});
