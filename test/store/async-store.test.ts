import { describe, expect, it } from 'vitest';
import type { UtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { LEFT_OUT, REPOSITORY_NAMES } from '../../src/store/async-store.js';
import type { NewSubscription } from '../../src/store/subscriptions.js';
import { makeNotice } from '../fakes/notice.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-async-store-');
const AT = '2026-11-20T15:00:00Z' as UtcIso;

function sub(target: string): NewSubscription {
  return {
    rule: { notices: {}, notify: [target] },
    target,
    source: 'cli',
    channel: null,
    created_by: 'test',
    created_at: AT,
    notice_id: null,
  };
}

/** The targets of the subscriptions stored, as the synchronous store reads them. */
const targets = () => temp.store.subscriptions.all().map((s) => s.target);

/** A promise the test resolves when it likes, and whether it was. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * What only SQLite's asynchronous store does: one connection, transactions taking turns.
 * What transactions do on both stores is in `postgres/transactions.test.ts`.
 */
describe('the asynchronous store on SQLite', () => {
  it('answers what the synchronous one does, as a promise', async () => {
    const store = asyncStoreOf(temp.store);
    const id = await store.subscriptions.add(sub('slack:#a'));
    expect((await store.subscriptions.get(id))?.target).toBe('slack:#a');
    expect(asyncStoreOf(temp.store)).toBe(store);
    await expect(
      store.subscriptions.add({ ...sub('x'), source: 'nowhere' as never }),
    ).rejects.toThrow(/CHECK constraint/);
  });

  it('has every method of every repository but those left out', () => {
    const store = asyncStoreOf(temp.store);
    for (const name of REPOSITORY_NAMES) {
      const left: readonly string[] = (LEFT_OUT as Record<string, readonly string[]>)[name] ?? [];
      const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(temp.store[name])).filter(
        (key) => key !== 'constructor',
      );
      const offered = Object.keys(store[name]);
      for (const key of methods)
        expect(offered.includes(key), `${name}.${key}`).toBe(!left.includes(key));
    }
    expect(Object.keys(store.notices)).toContain('visitPostedSince');
  });

  it('forgets the words it remembered writing when a transaction rolls back', async () => {
    const store = asyncStoreOf(temp.store);
    await expect(
      store.transaction(async () => {
        await store.notices.upsert(makeNotice({ id: 1, type: 'Gas Quality' }), AT, false);
        throw new Error('the page failed after its first notice');
      }),
    ).rejects.toThrow('the page failed');
    await store.notices.upsert(makeNotice({ id: 2, type: 'Gas Quality' }), AT, false);
    expect((await store.notices.vocabulary()).types).toEqual(['gas quality']);
  });

  it('runs two transactions begun at once one after the other', async () => {
    const store = asyncStoreOf(temp.store);
    const first = gate();
    const order: string[] = [];
    const one = store.transaction(async () => {
      order.push('one begins');
      await store.subscriptions.add(sub('slack:#one'));
      await first.opened;
      order.push('one ends');
    });
    const two = store.transaction(async () => {
      order.push('two begins');
      await store.subscriptions.add(sub('slack:#two'));
      order.push('two ends');
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['one begins']);
    first.open();
    await Promise.all([one, two]);
    expect(order).toEqual(['one begins', 'one ends', 'two begins', 'two ends']);
    expect(targets()).toEqual(['slack:#one', 'slack:#two']);
  });

  it('makes a call from outside an open transaction wait for it, and keeps it out of it', async () => {
    const store = asyncStoreOf(temp.store);
    const held = gate();
    const tx = store.transaction(async () => {
      await store.subscriptions.add(sub('slack:#inside'));
      await held.opened;
      throw new Error('rolled back');
    });
    let outsideDone = false;
    await new Promise((resolve) => setImmediate(resolve));
    const outside = store.subscriptions.add(sub('slack:#outside')).then((id) => {
      outsideDone = true;
      return id;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(outsideDone).toBe(false);
    held.open();
    await expect(tx).rejects.toThrow('rolled back');
    await outside;
    expect(targets()).toEqual(['slack:#outside']);
  });

  it('refuses a synchronous transaction from outside an open one, and lets one inside join it', async () => {
    const store = asyncStoreOf(temp.store);
    const held = gate();
    const tx = store.transaction(async () => {
      temp.store.transaction(() => temp.store.subscriptions.add(sub('slack:#joined')));
      await held.opened;
      await store.subscriptions.add(sub('slack:#after'));
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(() =>
      temp.store.transaction(() => temp.store.subscriptions.add(sub('slack:#engine'))),
    ).toThrow(/asynchronous one is open on the same connection, outside it/);
    held.open();
    await tx;
    expect(targets()).toEqual(['slack:#joined', 'slack:#after']);
    // Once it ended, synchronous transactions run as before.
    temp.store.transaction(() => temp.store.subscriptions.add(sub('slack:#engine')));
    expect(targets()).toContain('slack:#engine');
  });
});
