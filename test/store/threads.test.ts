/**
 * Thread references in the database: the first reference kept for a subject at a target
 * stays (an update always threads under the first message), each target and subject has
 * its own, and they survive a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';

let dataDir: string;
let store: Store;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-threads-'));
  store = Store.open(dataDir);
});

afterEach(() => {
  store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('thread store', () => {
  it('keeps the first reference of a subject at a target', () => {
    expect(store.threads.get('slack:#gas', 'notice:101')).toBeUndefined();
    store.threads.set('slack:#gas', 'notice:101', { channel: 'C0GAS', ts: '1.000100' });
    store.threads.set('slack:#gas', 'notice:101', { channel: 'C0GAS', ts: '2.000200' });
    expect(store.threads.get('slack:#gas', 'notice:101')).toEqual({
      channel: 'C0GAS',
      ts: '1.000100',
    });
  });

  it('keeps one reference per target and subject', () => {
    store.threads.set('slack:#gas', 'notice:101', { ts: '1' });
    store.threads.set('slack:#ops', 'notice:101', { ts: '2' });
    store.threads.set('slack:#gas', 'notice:102', { ts: '3' });
    expect(store.threads.get('slack:#gas', 'notice:101')?.ts).toBe('1');
    expect(store.threads.get('slack:#ops', 'notice:101')?.ts).toBe('2');
    expect(store.threads.get('slack:#gas', 'notice:102')?.ts).toBe('3');
    expect(store.threads.get('slack:#ops', 'notice:102')).toBeUndefined();
  });

  it('survives a reopen of the database file', () => {
    store.threads.set('discord:123', 'notice:7', { channel: '123', message: '456' });
    store.close();
    store = Store.open(dataDir);
    expect(store.threads.get('discord:123', 'notice:7')).toEqual({
      channel: '123',
      message: '456',
    });
  });
});
