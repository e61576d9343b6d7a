/**
 * The words every platform's buttons carry after their kind: what a `remind`, a `remove`
 * and a mute's hours read as, and how long a slug each envelope takes.
 */
import { describe, expect, it } from 'vitest';
import {
  HOUR_MS,
  listActionOf,
  listActionWords,
  muteForMs,
  slugPattern,
} from '../../src/chat/action-words.js';

describe('action words', () => {
  it('read back what they write for a reminder and a removal', () => {
    const actions = [
      { kind: 'remind', noticeId: 412 },
      { kind: 'remove', what: 'subscription', id: 3 },
      { kind: 'remove', what: 'silence', id: 999_999_999_999_999 },
    ] as const;
    for (const action of actions) {
      expect(listActionOf(action.kind, listActionWords(action).split(':'))).toEqual(action);
    }
  });

  it.each([
    ['remind', ['0']],
    ['remind', ['12', 'x']],
    ['remind', ['1000000000000000']],
    ['remove', ['rule', '4']],
    ['remove', ['silence']],
    ['remove', ['silence', '-1']],
    ['mute', ['transco']],
    [undefined, []],
  ])('refuse %s %j', (kind, rest) => {
    expect(listActionOf(kind, rest)).toBeUndefined();
  });

  it('take a mute of 1 to 720 whole hours, and nothing else', () => {
    expect(muteForMs('1')).toBe(HOUR_MS);
    expect(muteForMs('720')).toBe(720 * HOUR_MS);
    for (const hours of ['0', '721', '9999', '04', '1.5', '', ' 4', '4h']) {
      expect(muteForMs(hours), hours).toBeUndefined();
    }
  });

  it('take a slug up to the length its envelope has room for', () => {
    const slug = slugPattern(80);
    expect(slug.test(`t${'x'.repeat(79)}`)).toBe(true);
    expect(slug.test(`t${'x'.repeat(80)}`)).toBe(false);
    expect(slug.test('Texas-Eastern_2.0')).toBe(true);
    for (const bad of ['', '-transco', 'trans:co', 'trans co']) {
      expect(slug.test(bad), bad).toBe(false);
    }
  });
});
