import { describe, expect, it } from 'vitest';
import { zoneFormat } from '../../src/lib/zone-format.js';

describe('zoneFormat', () => {
  const hourMinute = zoneFormat({ hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });

  it('builds one format per zone and keeps it', () => {
    const chicago = hourMinute('America/Chicago');
    expect(hourMinute('America/Chicago')).toBe(chicago);
    expect(hourMinute('America/New_York')).not.toBe(chicago);
  });

  it('shows an instant in the zone asked, in en-US', () => {
    const at = new Date('2026-11-20T15:00:00Z');
    expect(hourMinute('America/Chicago').format(at)).toBe('9:00 AM CST');
    expect(hourMinute('America/New_York').format(at)).toBe('10:00 AM EST');
  });

  it('keeps formats of different options apart', () => {
    const dateOnly = zoneFormat({ year: 'numeric', month: '2-digit', day: '2-digit' });
    expect(dateOnly('America/Chicago')).not.toBe(hourMinute('America/Chicago'));
    expect(dateOnly('America/Chicago').format(new Date('2026-11-21T03:00:00Z'))).toBe('11/20/2026');
  });

  it('refuses an unknown zone, every time', () => {
    expect(() => hourMinute('America/Nowhere')).toThrow(RangeError);
    expect(() => hourMinute('America/Nowhere')).toThrow(RangeError);
  });
});
