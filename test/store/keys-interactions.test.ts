/**
 * An instance's own keys are made once and kept across reopening the database, and an
 * interaction id is answered once however often it arrives within the window.
 */
import { describe, expect, it } from 'vitest';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-keys-');

describe('keys', () => {
  it('a key is made on first use and read back afterwards, also after reopening', () => {
    let made = 0;
    const make = () => `key-${++made}`;
    const first = temp.store;
    expect(first.keys.getOrCreate('unsubscribe', make, '2026-11-20T15:00:00Z')).toBe('key-1');
    expect(first.keys.getOrCreate('unsubscribe', make, '2026-11-20T16:00:00Z')).toBe('key-1');
    expect(first.keys.getOrCreate('other', make, '2026-11-20T16:00:00Z')).toBe('key-2');
    const again = temp.reopen();
    expect(again.keys.getOrCreate('unsubscribe', make, '2026-11-21T15:00:00Z')).toBe('key-1');
  });
});

describe('interactions', () => {
  it('an id is new once; ids older than the window are forgotten', () => {
    const { store } = temp;
    const at = (t: string) => `2026-11-20T15:${t}Z`;
    expect(store.interactions.firstTime('111', at('00:00'), at('00:00'))).toBe(true);
    expect(store.interactions.firstTime('111', at('01:00'), at('00:00'))).toBe(false);
    expect(store.interactions.firstTime('222', at('01:00'), at('00:00'))).toBe(true);
    // Ten minutes on, 111 is outside the window and forgotten.
    expect(store.interactions.firstTime('111', at('10:00'), at('05:00'))).toBe(true);
    expect(store.interactions.firstTime('222', at('10:00'), at('05:00'))).toBe(true);
  });
});
