/**
 * Unsubscribing on a real database: the key of the links is made once and kept across
 * restarts unless PIPEWATCH_SECRET_KEY names one; an unsubscribe makes one endless
 * silence of what is not held back already, and nothing when all of it is.
 */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import { makeToken, verifyToken } from '../../src/unsubscribe/links.js';
import {
  UNSUBSCRIBE_AUTHOR,
  unsubscribe,
  unsubscribeKey,
  unsubscribeState,
} from '../../src/unsubscribe/silences.js';
import { ManualClock } from '../support/clock.js';
import { listMatchers, type MatcherLists } from '../support/silence-matchers.js';
import { useTempStores } from '../support/temp-store.js';

const NOW = '2026-11-20T15:00:00Z';
const TARGET = 'email:ops@example.com';
const { open } = useTempStores('pipewatch-unsub-key-');

const keyRows = (store: Store) =>
  (store.db.prepare('SELECT COUNT(*) AS n FROM keys').get() as { n: number }).n;

describe('the key of unsubscribe links', async () => {
  it('is made on first start and kept: links signed before a restart verify after it', async () => {
    const clock = new ManualClock(NOW);
    const { store, dir } = open();
    const key = await unsubscribeKey(asyncStoreOf(store), undefined, clock);
    expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    expect(await unsubscribeKey(asyncStoreOf(store), undefined, clock)).toBe(key);
    const token = makeToken({ addresses: ['ops@example.com'], rules: ['r'] }, key);
    store.close();
    const reopened = open(dir).store;
    const again = await unsubscribeKey(asyncStoreOf(reopened), undefined, clock);
    expect(again).toBe(key);
    expect(verifyToken(token, again)).toBeDefined();
    expect(await unsubscribeKey(asyncStoreOf(open().store), undefined, clock)).not.toBe(key);
  });

  it('is PIPEWATCH_SECRET_KEY when set, and then none is made', async () => {
    const secret = 'an-operator-chosen-secret-of-32-characters-or-more';
    const config = loadConfig({ PIPEWATCH_SECRET_KEY: secret }, tmpdir());
    const { store } = open();
    const kept = await unsubscribeKey(asyncStoreOf(store), undefined, new ManualClock(NOW));
    const fresh = open().store;
    expect(await unsubscribeKey(asyncStoreOf(fresh), config.secretKey, new ManualClock(NOW))).toBe(
      secret,
    );
    expect(keyRows(fresh)).toBe(0);
    expect(await unsubscribeKey(asyncStoreOf(store), config.secretKey, new ManualClock(NOW))).toBe(
      secret,
    );
    const token = makeToken({ addresses: ['ops@example.com'], rules: ['r'] }, kept);
    expect(verifyToken(token, secret)).toBeUndefined();
  });
});

describe('unsubscribe', async () => {
  const silence = (store: Store, matchers: MatcherLists, ends: string | null = null) =>
    store.silences.add({
      matchers: listMatchers(matchers),
      starts_at: '2026-11-20T14:00:00Z',
      ends_at: ends,
      created_by: 'someone',
      comment: null,
      created_at: '2026-11-20T14:00:00Z',
    });

  it('silences only the rules no endless silence of that target holds back already', async () => {
    const { store } = open();
    const endless = silence(store, { targets: [TARGET], rules: ['a'] });
    silence(store, { targets: [TARGET], rules: ['b'] }, '2026-11-20T18:00:00Z');
    silence(store, { targets: [TARGET], rules: ['c'], pipelines: ['transco'] });
    silence(store, { targets: ['email:other@example.com'], rules: ['c'] });
    const scope = { addresses: ['ops@example.com'], rules: ['a', 'b', 'c'] };
    const result = await unsubscribe(asyncStoreOf(store), scope, NOW);
    expect(result.created).toBeDefined();
    expect(result.silences).toEqual([endless, result.created]);
    expect(store.silences.get(result.created!)).toMatchObject({
      matchers: listMatchers({ targets: [TARGET], rules: ['b', 'c'] }),
      ends_at: null,
      created_by: UNSUBSCRIBE_AUTHOR,
      comment: 'unsubscribed with the link in an email to ops@example.com',
    });
    expect(await unsubscribe(asyncStoreOf(store), scope, NOW)).toEqual({
      ...result,
      created: undefined,
    });
    expect(store.silences.list()).toHaveLength(5);
  });

  it('stops every rule for a link that names them all, which then holds any rule', async () => {
    const { store } = open();
    const scope = { addresses: ['ops@example.com', 'gas@example.com'], rules: 'all' as const };
    const { created } = await unsubscribe(asyncStoreOf(store), scope, NOW);
    expect(store.silences.get(created!)?.matchers).toEqual(
      listMatchers({ targets: ['email:ops@example.com,gas@example.com'] }),
    );
    const one = { addresses: scope.addresses, rules: ['x'] };
    expect((await unsubscribeState(asyncStoreOf(store), one, NOW)).remaining).toEqual([]);
    expect(await unsubscribe(asyncStoreOf(store), one, NOW)).toMatchObject({
      created: undefined,
      silences: [created],
    });
  });

  it('starts again once the silence is lifted', async () => {
    const { store } = open();
    const scope = { addresses: ['ops@example.com'], rules: ['a'] };
    const first = (await unsubscribe(asyncStoreOf(store), scope, NOW)).created!;
    store.silences.lift(first, 'cli', NOW);
    expect((await unsubscribeState(asyncStoreOf(store), scope, NOW)).remaining).toEqual(['a']);
    expect((await unsubscribe(asyncStoreOf(store), scope, NOW)).created).toBe(first + 1);
  });
});
