/**
 * Thread references in the database: the first reference kept for a subject at a target
 * stays (an update always threads under the first message), each target and subject has
 * its own, and they survive a restart.
 */
import { describe, expect, it } from 'vitest';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-threads-');

describe('thread store', () => {
  it('keeps the first reference of a subject at a target', () => {
    expect(temp.store.threads.get('slack:#gas', 'notice:101')).toBeUndefined();
    temp.store.threads.set('slack:#gas', 'notice:101', { channel: 'C0GAS', ts: '1.000100' });
    temp.store.threads.set('slack:#gas', 'notice:101', { channel: 'C0GAS', ts: '2.000200' });
    expect(temp.store.threads.get('slack:#gas', 'notice:101')).toEqual({
      channel: 'C0GAS',
      ts: '1.000100',
    });
  });

  it('keeps one reference per target and subject', () => {
    temp.store.threads.set('slack:#gas', 'notice:101', { ts: '1' });
    temp.store.threads.set('slack:#ops', 'notice:101', { ts: '2' });
    temp.store.threads.set('slack:#gas', 'notice:102', { ts: '3' });
    expect(temp.store.threads.get('slack:#gas', 'notice:101')?.ts).toBe('1');
    expect(temp.store.threads.get('slack:#ops', 'notice:101')?.ts).toBe('2');
    expect(temp.store.threads.get('slack:#gas', 'notice:102')?.ts).toBe('3');
    expect(temp.store.threads.get('slack:#ops', 'notice:102')).toBeUndefined();
  });

  it('survives a reopen of the database file', () => {
    temp.store.threads.set('discord:123', 'notice:7', { channel: '123', message: '456' });
    temp.reopen();
    expect(temp.store.threads.get('discord:123', 'notice:7')).toEqual({
      channel: '123',
      message: '456',
    });
  });
});
