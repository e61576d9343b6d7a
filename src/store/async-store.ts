/**
 * The store as code that may run against a shared PostgreSQL database sees it: the same
 * repositories as `Store`, each method answering with a Promise of what it returns there,
 * and transactions whose bodies are asynchronous. The types are derived from the
 * repositories themselves, so a method added to one is in both. `async-sqlite.ts` is the
 * SQLite implementation; the engine, ingest and delivery still use `Store` directly.
 *
 * A transaction body awaits only store calls: on SQLite a transaction holds the one
 * connection, and everything else waits for it while it is open.
 */
import type { z } from 'zod';
import type { Store, StoreCounts } from './index.js';

/** The repositories, by their name on `Store`. */
export const REPOSITORY_NAMES = [
  'notices',
  'pipelines',
  'capacity',
  'syncState',
  'catalog',
  'outbox',
  'audit',
  'threads',
  'reminders',
  'capacityAlerts',
  'subscriptions',
  'silences',
  'acks',
  'escalations',
  'keys',
  'interactions',
  'retention',
  'outages',
] as const satisfies readonly (keyof Store)[];

export type RepositoryName = (typeof REPOSITORY_NAMES)[number];

/**
 * The methods left out: the store's own bookkeeping around a transaction, which no caller
 * makes, and the notices' generators, which hold the connection between two rows while
 * their caller may await something else (`visitPostedSince` streams instead).
 */
export const LEFT_OUT = {
  notices: ['forgetWrittenWords', 'postedSince', 'postedSinceIn'],
  reminders: ['noticeStored'],
} as const satisfies { [K in RepositoryName]?: readonly (keyof Store[K])[] };

type LeftOut<K extends RepositoryName> = K extends keyof typeof LEFT_OUT
  ? (typeof LEFT_OUT)[K][number]
  : never;

/** `R`'s public methods but those in `Left`, each answering with a Promise. */
export type Promised<R, Left extends PropertyKey = never> = {
  readonly [K in Exclude<keyof R, Left> as R[K] extends (...args: never[]) => unknown
    ? K
    : never]: R[K] extends (...args: infer A) => infer T ? (...args: A) => Promise<T> : never;
};

/**
 * A generic method loses its type parameter in `Promised`: such a method is written out
 * here instead.
 */
interface GenericMethods {
  syncState: {
    cursor<S extends z.ZodType>(feed: string, schema: S): Promise<z.output<S> | undefined>;
  };
}

type AsyncRepository<K extends RepositoryName> = K extends keyof GenericMethods
  ? Omit<Promised<Store[K], LeftOut<K>>, keyof GenericMethods[K]> & GenericMethods[K]
  : Promised<Store[K], LeftOut<K>>;

/**
 * The store, asynchronous. For example:
 *
 *     const row = await store.subscriptions.get(id);
 *     await store.transaction(async () => {
 *       await store.subscriptions.resumeChannel(channel);
 *       return store.subscriptions.add(row);
 *     });
 */
export type AsyncStore = { readonly [K in RepositoryName]: AsyncRepository<K> } & {
  /**
   * Runs `fn` in one transaction: its writes land together or not at all. Calls inside
   * it (in its asynchronous context) are part of it, and a transaction begun inside it
   * joins it; when `fn` throws, everything is rolled back. `fn` awaits only store calls.
   */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
};

/** Row counts, for status output (`Store.counts` on either store). */
export async function storeCounts(store: AsyncStore): Promise<StoreCounts> {
  return {
    pipelines: await store.pipelines.count(),
    notices: await store.notices.count(),
    capacity_cycles: await store.capacity.count(),
  };
}
