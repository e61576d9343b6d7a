/**
 * The asynchronous store on PostgreSQL: every repository on one pool, each statement on
 * the client of the transaction open in the caller's asynchronous context
 * (`TransactionScope`), or on any connection of the pool outside one. A transaction is
 * BEGIN … COMMIT on a client of its own, so transactions from different callers (the
 * leader's ingest, a standby's chat command) run side by side, as PostgreSQL's
 * concurrency control lets them, rather than one after the other as on SQLite.
 *
 * Isolation is PostgreSQL's default, READ COMMITTED, as pg-boss and graphile-worker run:
 * one leader makes every decision, and the rows other replicas write concurrently
 * (subscriptions, silences, acknowledgements) are each one statement, read at the
 * leader's next decision. The outbox's fenced statements lock what they need themselves.
 *
 * Fencing whole transactions: one begun while this replica leads (an ingest page and
 * the alerts decided on it) commits only if the term it began under still holds the
 * lease, checked just before COMMIT (the lease row taken FOR SHARE, so no takeover slips
 * between the check and the commit). A leader paused mid-page and resumed after another
 * took over thus rolls its page back with `not_leader`, instead of queueing alerts the new
 * leader queues too. Checking at the end rather than locking the lease row at BEGIN keeps
 * a hung leader's open transaction from holding off the takeover; and such a transaction
 * may sit idle only for its fence's `idleMs` (the lease's margin), after which the server
 * ends it, so a leader paused between two statements (a claim and its commit, the check
 * and COMMIT) leaves no lock behind by the time its lease runs out.
 */
import type pg from 'pg';
import type { AsyncStore } from '../async-store.js';
import { DatabaseError, NOT_LEADER } from '../database.js';
import { type OpenTransaction, TransactionScope } from '../transaction-scope.js';
import { PgAuditStore, PgEscalationStore, PgOutageStore, PgThreadStore } from './alert-records.js';
import { PgCapacityStore } from './capacity.js';
import { PgCapacityAlertStore } from './capacity-alerts.js';
import { PgAckStore, PgInteractionStore, PgKeyStore } from './chat-state.js';
import { PgCatalogStore, PgPipelineStore, PgSyncStateStore } from './feed-state.js';
import { type Fence, fencedBy, fenceValues } from './fence.js';
import { PgNoticeStore } from './notices.js';
import { PgOutboxStore } from './outbox.js';
import { bounded, type Connection, type Queryable, withoutNul } from './queryable.js';
import { PgReminderStore } from './reminders.js';
import { PgRetentionStore } from './retention.js';
import { PgSilenceStore } from './silences.js';
import { PgSubscriptionStore } from './subscriptions.js';

/** What the store on PostgreSQL may be told. */
export interface PgStoreOptions {
  /**
   * How long each statement waits for its answer at most (`bounded`); none: as long as
   * it takes. The daemon gives the lease's length: a leader's work that waits on a lost
   * connection ends with it, before the replica may lead again.
   */
  queryTimeoutMs?: number;
}

/**
 * The asynchronous store on `pool`. `fence` is the leader's current term (none while a
 * standby): the outbox's claims and outcomes are made under it and refused without it.
 */
export function pgAsyncStore(
  pool: pg.Pool,
  fence: () => Fence | undefined,
  options: PgStoreOptions = {},
): AsyncStore {
  const scope = new TransactionScope<Queryable>();
  const timeoutMs = options.queryTimeoutMs;
  const outside = withoutNul(bounded(pool, timeoutMs));
  const db: Connection = () => scope.current() ?? outside;
  const notices = new PgNoticeStore(db);
  const store = {
    notices,
    pipelines: new PgPipelineStore(db),
    capacity: new PgCapacityStore(db),
    syncState: new PgSyncStateStore(db),
    catalog: new PgCatalogStore(db),
    outbox: new PgOutboxStore(db, notices, fence),
    audit: new PgAuditStore(db),
    threads: new PgThreadStore(db),
    reminders: new PgReminderStore(db),
    capacityAlerts: new PgCapacityAlertStore(db),
    subscriptions: new PgSubscriptionStore(db),
    silences: new PgSilenceStore(db),
    acks: new PgAckStore(db),
    escalations: new PgEscalationStore(db),
    keys: new PgKeyStore(db),
    interactions: new PgInteractionStore(db),
    retention: new PgRetentionStore(db),
    outages: new PgOutageStore(db),
    transaction: <T>(fn: () => Promise<T>) =>
      scope.run(
        () => begin(pool, fence(), timeoutMs),
        fn,
        () => {},
      ),
  } satisfies AsyncStore;
  return store;
}

/** BEGIN on a client of the pool, held until COMMIT or ROLLBACK. */
async function begin(
  pool: pg.Pool,
  term: Fence | undefined,
  timeoutMs: number | undefined,
): Promise<OpenTransaction<Queryable>> {
  const client = await pool.connect();
  const q = bounded(client, timeoutMs);
  // A checked-out client's connection that fails (the server restarted, the network cut
  // it) emits 'error' on the client, which the pool hears only while it is idle: without a
  // listener, it would end the process. The statement under way fails with it, and so
  // does this transaction; the pool drops the client when it is released.
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  let released = false;
  const release = (error?: unknown) => {
    if (released) return;
    released = true;
    client.off('error', onError);
    const broken = error ?? lost;
    client.release(broken === undefined ? undefined : asError(broken));
  };
  try {
    // In the same round trip: a transaction begun while leading may sit idle only briefly.
    await q.query(
      term?.idleMs === undefined
        ? 'BEGIN'
        : `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${Math.max(1, Math.ceil(term.idleMs))}`,
    );
  } catch (error) {
    release(error);
    throw error;
  }
  return {
    connection: withoutNul(q),
    commit: async () => {
      if (term) await stillLeading(q, term);
      try {
        await q.query('COMMIT');
      } catch (error) {
        // The transaction is over either way; the connection may not be: drop it.
        release(error);
        throw error;
      }
      release();
    },
    rollback: async () => {
      if (released) return;
      try {
        await q.query('ROLLBACK');
        release();
      } catch (error) {
        // A connection that cannot roll back is broken: the pool drops it.
        release(error);
      }
    },
  };
}

/** Throws `not_leader` (the transaction then rolls back) once `term` no longer leads. */
async function stillLeading(q: Queryable, term: Fence): Promise<void> {
  const { rows } = await q.query<{ held: boolean }>(
    `SELECT ${fencedBy(1)} AS held`,
    fenceValues(term),
  );
  if (rows[0]?.held) return;
  throw new DatabaseError(
    `a transaction begun while this replica (${term.holder}) led at term ${term.term} was rolled back: another replica took the lease over, and decides in its place`,
    { code: NOT_LEADER },
  );
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
