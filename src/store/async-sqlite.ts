/**
 * The asynchronous store on SQLite: each call runs synchronously on the one connection
 * underneath and resolves at once. A transaction is BEGIN IMMEDIATE … COMMIT on that
 * connection, so two never interleave: they take turns (first come, first served), and a
 * call from outside the open transaction waits until it ends rather than land inside it.
 * A synchronous `Store.transaction` (the engine's, ingest's) from outside it is refused
 * loudly for the same reason: it cannot wait.
 */
import { type AsyncStore, LEFT_OUT, REPOSITORY_NAMES, type RepositoryName } from './async-store.js';
import { DatabaseError } from './database.js';
import type { Store } from './index.js';
import { FifoMutex, type OpenTransaction, TransactionScope } from './transaction-scope.js';

const made = new WeakMap<Store, AsyncStore>();

/**
 * The asynchronous store on `store`'s connection: one per `Store`, however often asked
 * for, since its transactions must take turns with every other on that connection.
 */
export function asyncStoreOf(store: Store): AsyncStore {
  let async = made.get(store);
  if (!async) {
    async = new SqliteTransactions(store).asyncStore();
    made.set(store, async);
  }
  return async;
}

type Method = (...args: unknown[]) => unknown;

/** The transactions of one connection, and the calls that wait for them. */
class SqliteTransactions {
  private readonly mutex = new FifoMutex();
  private readonly scope = new TransactionScope<undefined>();
  /** Whether BEGIN ran and neither COMMIT nor ROLLBACK yet. */
  private open = false;

  constructor(private readonly store: Store) {
    store.beforeTransaction = () => {
      if (this.open && !this.scope.inside())
        throw new DatabaseError(
          'a synchronous transaction began while an asynchronous one is open on the same connection, outside it: it would have become part of it. An asynchronous transaction must await only store calls',
        );
    };
  }

  asyncStore(): AsyncStore {
    const repositories: Record<string, Record<string, Method>> = {};
    for (const name of REPOSITORY_NAMES) repositories[name] = this.repository(name);
    return {
      ...repositories,
      transaction: <T>(fn: () => Promise<T>) =>
        this.scope.run(
          () => this.begin(),
          fn,
          () => this.store.notices.forgetWrittenWords(),
        ),
    } as unknown as AsyncStore;
  }

  /** Every method of the repository but those left out, answering with a Promise. */
  private repository(name: RepositoryName): Record<string, Method> {
    const repo = this.store[name] as unknown as Record<string, Method>;
    const left: readonly string[] = (LEFT_OUT as Record<string, readonly string[]>)[name] ?? [];
    const out: Record<string, Method> = {};
    for (
      let proto = Object.getPrototypeOf(repo);
      proto && proto !== Object.prototype;
      proto = Object.getPrototypeOf(proto)
    ) {
      for (const key of Object.getOwnPropertyNames(proto)) {
        if (key === 'constructor' || key in out || left.includes(key)) continue;
        const method = repo[key];
        if (typeof method === 'function') out[key] = this.call(repo, method);
      }
    }
    return out;
  }

  private call(repo: object, method: Method): Method {
    return (...args) => {
      if (this.mutex.busy && !this.scope.inside())
        return this.afterTransactions(() => method.apply(repo, args));
      try {
        return Promise.resolve(method.apply(repo, args));
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }

  /** Runs `call` once the transactions open or waiting before it have ended. */
  private async afterTransactions(call: () => unknown): Promise<unknown> {
    const release = await this.mutex.acquire();
    try {
      return call();
    } finally {
      release();
    }
  }

  private async begin(): Promise<OpenTransaction<undefined>> {
    const release = await this.mutex.acquire();
    const { db } = this.store;
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      release();
      throw error;
    }
    this.open = true;
    return {
      connection: undefined,
      commit: () => {
        db.exec('COMMIT');
        this.open = false;
        release();
      },
      rollback: () => {
        this.open = false;
        try {
          if (db.inTransaction) db.exec('ROLLBACK');
        } finally {
          release();
        }
      },
    };
  }
}
