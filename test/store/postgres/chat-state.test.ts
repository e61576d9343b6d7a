/**
 * Acknowledgements, keys and replayed requests behave the same on SQLite and on
 * PostgreSQL: the first acknowledgement stands, a key is made once, a request is new once.
 */
import { describe, expect, it } from 'vitest';
import {
  PgAckStore,
  PgInteractionStore,
  PgKeyStore,
} from '../../../src/store/postgres/chat-state.js';
import { on } from '../../../src/store/postgres/queryable.js';
import { type Opened, STORES } from '../../support/both-stores.js';

const NOW = '2026-11-20T15:00:00Z';

function repositories(o: Opened) {
  if (o.kind === 'sqlite')
    return { acks: o.store.acks, keys: o.store.keys, interactions: o.store.interactions };
  const db = on(o.pool);
  return {
    acks: new PgAckStore(db),
    keys: new PgKeyStore(db),
    interactions: new PgInteractionStore(db),
  };
}

describe.each(STORES)('%s (postgres and sqlite alike)', (_, open) => {
  it('keeps the first acknowledgement of a message', async () => {
    const { acks } = repositories(await open());
    expect(await acks.of('slack', 'C0GAS', '1.1')).toBeUndefined();
    expect(await acks.acknowledge('slack', 'C0GAS', '1.1', 'U0ALICE', NOW)).toEqual({
      by: 'U0ALICE',
      at: NOW,
      already: false,
    });
    expect(
      await acks.acknowledge('slack', 'C0GAS', '1.1', 'W0BOB', '2026-11-20T15:01:00Z'),
    ).toEqual({
      by: 'U0ALICE',
      at: NOW,
      already: true,
    });
    expect(await acks.of('slack', 'C0GAS', '1.1')).toEqual({ by: 'U0ALICE', at: NOW });
    expect(await acks.of('discord', 'C0GAS', '1.1')).toBeUndefined();
  });

  it('makes a key once and gives it back after', async () => {
    const { keys } = repositories(await open());
    const first = await keys.getOrCreate('unsubscribe', () => 'k1', NOW);
    const again = await keys.getOrCreate('unsubscribe', () => 'k2', NOW);
    expect([first, again]).toEqual(['k1', 'k1']);
  });

  it('a request is new once, and forgotten after its window', async () => {
    const { interactions } = repositories(await open());
    expect(await interactions.firstTime('i1', NOW, '2026-11-20T14:55:00Z')).toBe(true);
    expect(await interactions.firstTime('i1', NOW, '2026-11-20T14:55:00Z')).toBe(false);
    // Past its window it is forgotten, and new again.
    expect(await interactions.firstTime('i1', '2026-11-20T15:10:00Z', '2026-11-20T15:05:00Z')).toBe(
      true,
    );
  });
});

describe('two PostgreSQL databases in one test', () => {
  it('are two: opening the second leaves the first as it was', async () => {
    const open = STORES[1]![1];
    const first = repositories(await open());
    await first.acks.acknowledge('slack', 'C0GAS', '1.1', 'U0ALICE', NOW);
    const second = repositories(await open());
    expect(await second.acks.of('slack', 'C0GAS', '1.1')).toBeUndefined();
    expect(await first.acks.of('slack', 'C0GAS', '1.1')).toEqual({ by: 'U0ALICE', at: NOW });
  });
});
