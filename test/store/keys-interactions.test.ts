/**
 * An instance's own keys are made once and kept across reopening the database, and an
 * interaction id is answered once however often it arrives within the window.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';

const dir = () => mkdtempSync(join(tmpdir(), 'pipewatch-keys-'));

describe('keys', () => {
  it('a key is made on first use and read back afterwards, also after reopening', () => {
    const where = dir();
    let made = 0;
    const make = () => `key-${++made}`;
    const first = Store.open(where);
    expect(first.keys.getOrCreate('unsubscribe', make, '2026-11-20T15:00:00Z')).toBe('key-1');
    expect(first.keys.getOrCreate('unsubscribe', make, '2026-11-20T16:00:00Z')).toBe('key-1');
    expect(first.keys.getOrCreate('other', make, '2026-11-20T16:00:00Z')).toBe('key-2');
    first.close();
    const again = Store.open(where);
    expect(again.keys.getOrCreate('unsubscribe', make, '2026-11-21T15:00:00Z')).toBe('key-1');
    again.close();
  });
});

describe('interactions', () => {
  it('an id is new once; ids older than the window are forgotten', () => {
    const store = Store.open(dir());
    const at = (t: string) => `2026-11-20T15:${t}Z`;
    expect(store.interactions.firstTime('111', at('00:00'), at('00:00'))).toBe(true);
    expect(store.interactions.firstTime('111', at('01:00'), at('00:00'))).toBe(false);
    expect(store.interactions.firstTime('222', at('01:00'), at('00:00'))).toBe(true);
    // Ten minutes on, 111 is outside the window and forgotten.
    expect(store.interactions.firstTime('111', at('10:00'), at('05:00'))).toBe(true);
    expect(store.interactions.firstTime('222', at('10:00'), at('05:00'))).toBe(true);
    store.close();
  });
});
