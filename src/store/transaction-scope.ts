/**
 * Asynchronous transactions, whatever the database: which transaction a call belongs to
 * is the asynchronous context it runs in (`AsyncLocalStorage`), so repositories need no
 * transaction handed down to them. A transaction begun inside another joins it; when its
 * body throws, everything it wrote is rolled back, the outer transaction's too, even when
 * the outer body catches the error. The SQLite store (`async-sqlite.ts`) opens one at a
 * time on its one connection; a PostgreSQL store opens each on a client of its own and
 * finds that client here.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { DatabaseError } from './database.js';

/** What a database gives for one open transaction. */
export interface OpenTransaction<C> {
  /** What the calls inside use (SQLite: nothing; PostgreSQL: the pool client). */
  readonly connection: C;
  commit(): void | Promise<void>;
  rollback(): void | Promise<void>;
}

/** One open transaction, as the calls in its asynchronous context see it. */
interface Frame<C> {
  readonly connection: C;
  /** Set once it committed or rolled back: a call still running in its context is outside. */
  done: boolean;
  /** What a joined (nested) transaction threw: the whole transaction rolls back for it. */
  failed?: unknown;
}

/** The transactions open now and the asynchronous contexts that belong to each. */
export class TransactionScope<C> {
  private readonly frames = new AsyncLocalStorage<Frame<C>>();

  /** The connection of the transaction the caller runs inside; undefined outside any. */
  current(): C | undefined {
    const frame = this.frames.getStore();
    return frame && !frame.done ? frame.connection : undefined;
  }

  /** Whether the caller runs inside an open transaction. */
  inside(): boolean {
    const frame = this.frames.getStore();
    return frame !== undefined && !frame.done;
  }

  /**
   * Runs `fn` in a transaction: the caller's own when it runs inside one (joined), a new
   * one from `open` otherwise, committed when `fn` resolves and rolled back when it (or a
   * transaction joined to it) throws; `rolledBack` hears of each rollback.
   */
  async run<T>(
    open: () => Promise<OpenTransaction<C>>,
    fn: () => Promise<T>,
    rolledBack: () => void,
  ): Promise<T> {
    const outer = this.frames.getStore();
    if (outer && !outer.done) {
      try {
        return await fn();
      } catch (error) {
        outer.failed ??= error;
        throw error;
      }
    }
    const tx = await open();
    const frame: Frame<C> = { connection: tx.connection, done: false };
    let result: T;
    try {
      result = await this.frames.run(frame, fn);
      if ('failed' in frame)
        throw new DatabaseError(
          `the transaction was rolled back: a transaction inside it failed (${String(frame.failed)})`,
          { cause: frame.failed },
        );
      frame.done = true;
      await tx.commit();
    } catch (error) {
      frame.done = true;
      try {
        await tx.rollback();
      } finally {
        rolledBack();
      }
      throw error;
    }
    return result;
  }
}

/**
 * A first-come, first-served lock: each `acquire` resolves once every earlier holder has
 * released. What keeps a single connection's transactions one after the other.
 */
export class FifoMutex {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  /** Whether anyone holds or waits for it. */
  get busy(): boolean {
    return this.holders > 0;
  }

  /** Resolves with the release, once the lock is the caller's. */
  acquire(): Promise<() => void> {
    this.holders++;
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const turn = this.tail.then(() => {
      let once = false;
      return () => {
        if (once) return;
        once = true;
        this.holders--;
        release();
      };
    });
    this.tail = released;
    return turn;
  }
}
