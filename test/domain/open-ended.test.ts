import { describe, expect, it } from 'vitest';
import { isOpenEnded, withOpenEnd } from '../../src/domain/open-ended.js';

const POSTED = '2026-11-20T14:00:00Z';
const at = (end_at: string | null, posted_at: string | null = POSTED, effective_at = null) => ({
  end_at,
  posted_at,
  effective_at,
});

describe('placeholder end dates', () => {
  it('are the far-future ends pipelines post for "until further notice"', () => {
    expect(isOpenEnded(at('9000-12-31T00:00:00Z'))).toBe(true);
    expect(isOpenEnded(at('2049-12-31T00:00:00Z'))).toBe(true);
    expect(isOpenEnded(at('9000-12-31T00:00:00Z', null))).toBe(true);
    expect(
      isOpenEnded({ end_at: '2049-12-31T00:00:00Z', posted_at: null, effective_at: POSTED }),
    ).toBe(true);
  });

  it('are not real ends, however long, nor an end that is missing or unreadable', () => {
    expect(isOpenEnded(at('2026-11-22T15:00:00Z'))).toBe(false);
    expect(isOpenEnded(at('2031-10-31T14:00:00Z'))).toBe(false);
    expect(isOpenEnded(at(null))).toBe(false);
    expect(isOpenEnded(at('not a date'))).toBe(false);
    // Nothing to measure from: only the year 9000 and later is sure.
    expect(isOpenEnded(at('2049-12-31T00:00:00Z', null))).toBe(false);
  });

  it('are null and flagged in the JSON given to others; a real end is kept', () => {
    expect(withOpenEnd(at('9000-12-31T00:00:00Z'))).toMatchObject({
      end_at: null,
      open_ended: true,
    });
    expect(withOpenEnd(at('2026-11-22T15:00:00Z'))).toMatchObject({
      end_at: '2026-11-22T15:00:00Z',
      open_ended: false,
    });
  });
});
