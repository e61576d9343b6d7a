/**
 * The asynchronous store's transactions, on SQLite and on PostgreSQL alike: writes land
 * together or not at all, a body that throws (after awaiting anything) rolls back, a
 * transaction begun inside another joins it, and a call from outside an open transaction
 * is never part of it. On PostgreSQL only: transactions run side by side on clients of
 * their own, a connection lost mid-transaction loses only that transaction, and the
 * outbox's writes are made under the fence the store was given.
 */
import type pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isNotLeader } from '../../../src/store/database.js';
import { pgAsyncStore } from '../../../src/store/postgres/async-store.js';
import { connectPostgres } from '../../../src/store/postgres/connect.js';
import type { Fence } from '../../../src/store/postgres/fence.js';
import { migratePostgres } from '../../../src/store/postgres/migrate.js';
import { NUL_STAND_IN } from '../../../src/store/postgres/queryable.js';
import type { NewSubscription } from '../../../src/store/subscriptions.js';
import { asyncStore, type Opened, STORES } from '../../support/both-stores.js';
import { usePostgresDatabase } from '../../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js';

const AT = '2026-11-20T15:00:00Z';

function sub(target: string, createdBy = 'test'): NewSubscription {
  return {
    rule: { notices: {}, notify: [target] },
    target,
    source: 'cli',
    channel: null,
    created_by: createdBy,
    created_at: AT,
    notice_id: null,
  };
}

/** A promise the test resolves when it likes. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe.each(STORES)('transactions of the asynchronous store on %s', (_, open) => {
  const opened = async () => {
    const o = await open();
    const store = asyncStore(o);
    const targets = async () => (await store.subscriptions.all()).map((s) => s.target);
    return { o, store, targets };
  };

  it('answers as a promise, and a refused write rejects', async () => {
    const { store } = await opened();
    const id = await store.subscriptions.add(sub('slack:#a'));
    expect((await store.subscriptions.get(id))?.target).toBe('slack:#a');
    await expect(
      store.subscriptions.add({ ...sub('x'), source: 'nowhere' as never }),
    ).rejects.toThrow(/check constraint/i);
  });

  it("lands a transaction's writes together", async () => {
    const { store, targets } = await opened();
    const ids = await store.transaction(async () => [
      await store.subscriptions.add(sub('slack:#a')),
      await store.subscriptions.add(sub('slack:#b')),
    ]);
    expect(ids).toHaveLength(2);
    expect(await targets()).toEqual(['slack:#a', 'slack:#b']);
  });

  it('rolls everything back when the body throws, after awaiting something else too', async () => {
    const { store, targets } = await opened();
    await expect(
      store.transaction(async () => {
        await store.subscriptions.add(sub('slack:#a'));
        await turn();
        await store.subscriptions.add(sub('slack:#b'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await targets()).toEqual([]);
    await store.subscriptions.add(sub('slack:#c'));
    expect(await targets()).toEqual(['slack:#c']);
  });

  it('rolls back a write the database refused, and the writes before it', async () => {
    const { store, targets } = await opened();
    await expect(
      store.transaction(async () => {
        await store.subscriptions.add(sub('slack:#a'));
        await store.subscriptions.add({ ...sub('x'), source: 'nowhere' as never });
      }),
    ).rejects.toThrow(/check constraint/i);
    expect(await targets()).toEqual([]);
  });

  it('joins a transaction begun inside another, and a throw inside rolls back the whole', async () => {
    const { store, targets } = await opened();
    await store.transaction(async () => {
      await store.subscriptions.add(sub('slack:#a'));
      await store.transaction(async () => {
        await store.subscriptions.add(sub('slack:#b'));
      });
    });
    expect(await targets()).toEqual(['slack:#a', 'slack:#b']);
    await expect(
      store.transaction(async () => {
        await store.subscriptions.add(sub('slack:#c'));
        await store
          .transaction(async () => {
            await store.subscriptions.add(sub('slack:#d'));
            throw new Error('inner');
          })
          .catch(() => 'caught, and still rolled back');
      }),
    ).rejects.toThrow(/a transaction inside it failed \(Error: inner\)/);
    expect(await targets()).toEqual(['slack:#a', 'slack:#b']);
  });

  it('keeps a call from outside an open transaction out of it', async () => {
    const { store, targets } = await opened();
    const held = gate();
    const tx = store.transaction(async () => {
      await store.subscriptions.add(sub('slack:#inside'));
      await held.opened;
      throw new Error('rolled back');
    });
    await turn();
    const outside = store.subscriptions.add(sub('slack:#outside'));
    await turn();
    held.open();
    await expect(tx).rejects.toThrow('rolled back');
    await outside;
    expect(await targets()).toEqual(['slack:#outside']);
  });

  it('stores text with U+0000 inside a transaction as outside one', async () => {
    const { o, store } = await opened();
    const id = await store.transaction(() => store.subscriptions.add(sub('slack:#a', 'a\0b')));
    const stored = (await store.subscriptions.get(id))?.created_by;
    expect(stored).toBe(o.kind === 'sqlite' ? 'a\0b' : `a${NUL_STAND_IN}b`);
  });
});

describe('transactions of the asynchronous store on PostgreSQL', () => {
  const postgres = async () => {
    const o = (await STORES[1][1]()) as Opened & { kind: 'postgres' };
    return { o, store: asyncStore(o) };
  };

  it('run side by side: one commits while another is still open', async () => {
    const { store } = await postgres();
    const held = gate();
    const order: string[] = [];
    const one = store.transaction(async () => {
      await store.subscriptions.add(sub('slack:#one'));
      await held.opened;
      order.push('one commits');
    });
    await turn();
    // Another table: writes to subscriptions take turns on their revision counter's row.
    await store.transaction(async () => {
      await store.interactions.firstTime('interaction-1', AT, AT);
      order.push('two commits');
    });
    // The open one's write is not seen outside it before it commits.
    expect(await store.subscriptions.all()).toEqual([]);
    held.open();
    await one;
    expect(order).toEqual(['two commits', 'one commits']);
    expect((await store.subscriptions.all()).map((s) => s.target)).toEqual(['slack:#one']);
    expect(await store.interactions.firstTime('interaction-1', AT, AT)).toBe(false);
  });

  it('loses only the transaction whose connection died, and goes on with a new one', async () => {
    const { o, store } = await postgres();
    await expect(
      store.transaction(async () => {
        await store.subscriptions.add(sub('slack:#lost'));
        // The server ends this transaction's connection, as a restart or a network cut would.
        await o.pool.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE datname = current_database() AND state = 'idle in transaction'`,
        );
        await store.subscriptions.add(sub('slack:#after'));
      }),
    ).rejects.toThrow(/terminat|connection/i);
    expect((await store.subscriptions.all()).map((s) => s.target)).toEqual([]);
    await store.transaction(() => store.subscriptions.add(sub('slack:#next')));
    expect((await store.subscriptions.all()).map((s) => s.target)).toEqual(['slack:#next']);
  });

  const FENCE: Fence = { name: 'leader', holder: 'replica-a', term: 1 };
  const lead = (o: Opened & { kind: 'postgres' }, fence = FENCE) =>
    o.pool.query(
      `INSERT INTO leader_lease (name, holder, term, acquired_at, renewed_at, expires_at)
       VALUES ($1, $2, $3, now(), now(), now() + interval '1 hour')
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, term = excluded.term`,
      [fence.name, fence.holder, fence.term],
    );

  it('rolls back a transaction begun while leading once another replica took the lease', async () => {
    const { o } = await postgres();
    await lead(o);
    const store = asyncStore(o, () => FENCE);
    const refused = await store
      .transaction(async () => {
        await store.subscriptions.add(sub('slack:#decided-by-the-old-leader'));
        await lead(o, { name: 'leader', holder: 'replica-b', term: 2 });
      })
      .catch((error: unknown) => error);
    expect(isNotLeader(refused)).toBe(true);
    expect(await store.subscriptions.all()).toEqual([]);
    // Still leading at commit: it lands. A standby's transaction (no fence) lands too.
    await lead(o);
    await store.transaction(() => store.subscriptions.add(sub('slack:#a')));
    const standby = asyncStore(o);
    await lead(o, { name: 'leader', holder: 'replica-b', term: 2 });
    await standby.transaction(() => standby.subscriptions.add(sub('slack:#b')));
    expect((await store.subscriptions.all()).map((s) => s.target)).toEqual([
      'slack:#a',
      'slack:#b',
    ]);
  });

  it('ends a transaction of a paused leader within its idle bound, so a takeover waits for no more', async () => {
    const { o } = await postgres();
    // The bound is the lease's margin; this one is short, as a test's lease would be.
    const fence: Fence = { ...FENCE, idleMs: 200 };
    await lead(o, fence);
    const store = asyncStore(o, () => fence);
    await store.outbox.enqueue('notice:1:v1', 'rule', { kind: 'console' }, '{}', AT);
    const [row] = await store.outbox.due(AT);
    // The leader claims under its fence (the lease row locked until the transaction
    // ends), then stops before committing: a process paused (SIGSTOP, a frozen VM).
    const paused = gate();
    const claimed = gate();
    const tx = store
      .transaction(async () => {
        await store.outbox.claim([row!.id], AT);
        claimed.open();
        await paused.opened;
      })
      .catch((error: unknown) => error);
    await claimed.opened;
    // Another replica takes the lease over: it waits for the paused transaction to end,
    // which the server ends once it has sat idle past the bound, not after the minute
    // every other transaction is allowed (the test would time out first).
    await o.pool.query("UPDATE leader_lease SET holder = 'replica-b', term = 2 WHERE name = $1", [
      fence.name,
    ]);
    paused.open();
    expect(String(await tx)).toMatch(/terminat|connection/i);
    // The claim went with it: the new leader finds the delivery unclaimed.
    expect((await store.outbox.due(AT)).map((r) => r.id)).toEqual([row!.id]);
  });

  it("makes the outbox's writes under the fence it was given, and refuses them without", async () => {
    const { o } = await postgres();
    const fence = FENCE;
    await lead(o);
    let held: Fence | undefined = fence;
    const store = asyncStore(o, () => held);
    await expect(store.outbox.claim([1], AT)).resolves.toBeUndefined();
    held = undefined;
    const refused = await store.outbox.claim([1], AT).catch((error: unknown) => error);
    expect(isNotLeader(refused)).toBe(true);
  });
});

describe('statements of the store on PostgreSQL cut off from the server', () => {
  const db = usePostgresDatabase();
  const proxies: TcpProxy[] = [];
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    await migratePostgres(db.pool(), 'test');
  });
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) await proxy.close();
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });

  /** The store through a proxy the test cuts, each statement waiting `boundMs` at most. */
  async function cutOff(boundMs: number) {
    const server = new URL(db.url);
    const proxy = await startTcpProxy(server.hostname, Number(server.port));
    proxies.push(proxy);
    const pool = await connectPostgres(proxy.via(db.url));
    pools.push(pool);
    return { proxy, store: pgAsyncStore(pool, () => undefined, { queryTimeoutMs: boundMs }) };
  }

  it('abandons a statement whose answer never comes, and the next finds a new connection', async () => {
    const { proxy, store } = await cutOff(300);
    await store.subscriptions.add(sub('slack:#before'));
    // The network drops every byte, and the connection stays open: no error ever comes.
    proxy.hang();
    const lost = store.subscriptions.all().catch((error: unknown) => error);
    await proxy.swallowed();
    expect(String(await lost)).toMatch(/did not answer within 300 ms/);
    proxy.heal();
    expect((await store.subscriptions.all()).map((s) => s.target)).toEqual(['slack:#before']);
  });

  it('ends a transaction whose statement never gets its answer, rolled back', async () => {
    const { proxy, store } = await cutOff(300);
    const tx = store
      .transaction(async () => {
        await store.subscriptions.add(sub('slack:#inside'));
        proxy.hang();
        await store.subscriptions.add(sub('slack:#cut-off'));
      })
      .catch((error: unknown) => error);
    expect(String(await tx)).toMatch(/did not answer within 300 ms/);
    proxy.heal();
    const targets = (await store.subscriptions.all()).map((s) => s.target);
    expect(targets).not.toContain('slack:#inside');
  });
});
