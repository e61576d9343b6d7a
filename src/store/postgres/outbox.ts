/**
 * The outbox on PostgreSQL, with the methods of `OutboxStore` (`../outbox.ts`), each
 * answering a promise of what the SQLite one returns, for replicas sharing one database.
 *
 * Only the leader sends, so the writes that send (`claim`, `markSent`, `retryLater`,
 * `markDead`, `releaseClaims`) are fenced: each statement holds only while the lease term
 * this replica leads under (`fence()`) is current, checked in the same statement
 * (`fence.ts`). Without a fence, or once another replica has taken the lease, each
 * changes nothing and throws a `DatabaseError` of code `not_leader`. A claim records who
 * made it and under which term (`claimed_by`, `claimed_term`), so that a new leader
 * releases the claims of the one it replaced, and skips rows another transaction is
 * claiming (FOR UPDATE SKIP LOCKED) rather than wait for them.
 *
 * A delivery that names a notice version is given that version from the notice store
 * (`PgNoticeStore.at`, one statement each), each version named in a batch read once, a
 * few at a time.
 */
import { type Target, targetKey } from '../../domain/targets.js';
import type { UtcIso } from '../../lib/time.js';
import { DatabaseError } from '../database.js';
import {
  enqueueValues,
  type Head,
  type NoticeRef,
  type OutboxBacklog,
  type OutboxPayload,
  type OutboxRow,
  type OutboxStatus,
  type OutboxSummary,
  prefixEnd,
  type ReadyDeliveries,
} from '../outbox.js';
import {
  declared,
  type NoticeAt,
  type Read,
  type Row,
  readable,
  readRows,
  versionKey,
  versionsNamed,
} from '../outbox-read.js';
import { readStoredTarget, StoredDataError } from '../stored-json.js';
import { type Fence, fenceValues } from './fence.js';
import type { PgNoticeStore } from './notices.js';
import { PG_OUTBOX_SQL as SQL } from './outbox-sql.js';
import { type Connection, canBeId } from './queryable.js';

/** How many notice versions a batch of rows reads at once. */
const VERSIONS_AT_ONCE = 8;

/** How many ids a refused write names in its error. */
const IDS_NAMED = 10;

/** What a fenced statement answers. */
interface Fenced {
  held: boolean;
  changed: number;
}

/** Deliveries by id, as a refused write names them. */
function named(ids: readonly number[]): string {
  const shown = ids.slice(0, IDS_NAMED).join(', ');
  return `${ids.length === 1 ? 'delivery' : 'deliveries'} ${shown}${ids.length > IDS_NAMED ? ` and ${ids.length - IDS_NAMED} more` : ''}`;
}

/** The fence this replica holds, or the `not_leader` error for `what`. */
function leading(fence: Fence | undefined, what: string): Fence {
  if (!fence)
    throw new DatabaseError(
      `${what} was not written: this replica does not hold the leader lease (another replica leads, or none has taken the lease yet); only the leader sends`,
      { code: 'not_leader' },
    );
  return fence;
}

/** How many rows a fenced write changed, or the `not_leader` error when it held not. */
function written(result: Fenced | undefined, fence: Fence, what: string): number {
  if (!result?.held)
    throw new DatabaseError(
      `${what} was not written: this replica (${fence.holder}) no longer holds the lease ${JSON.stringify(fence.name)} at term ${fence.term}; another replica took it over, and sends in its place`,
      { code: 'not_leader' },
    );
  return result.changed;
}

/** A fenced write of rows by id (see `fenced` in outbox-sql.ts); none to write for no id. */
async function writeFenced(
  db: Connection,
  fence: Fence | undefined,
  what: string,
  ids: readonly number[],
  sql: string,
  values: (valid: number[]) => unknown[],
): Promise<void> {
  const held = leading(fence, what);
  const valid = ids.filter(canBeId);
  if (valid.length === 0) return;
  const result = await db().query<Fenced>(sql, [...fenceValues(held), ...values(valid)]);
  written(result.rows[0], held, what);
}

/** A notice version, or the error that keeps its history from being read. */
async function noticeAt(notices: PgNoticeStore, id: number, version: number): Promise<NoticeAt> {
  try {
    return await notices.at(id, version);
  } catch (error) {
    if (error instanceof StoredDataError) return error;
    throw error;
  }
}

/** Rows as deliveries, each notice version they name read once, a few at a time. */
async function readWith(notices: PgNoticeStore, rows: Row[]): Promise<Read[]> {
  const versions = new Map<string, NoticeAt>();
  const wanted = versionsNamed(rows);
  for (let i = 0; i < wanted.length; i += VERSIONS_AT_ONCE)
    await Promise.all(
      wanted.slice(i, i + VERSIONS_AT_ONCE).map(async ({ id, version }) => {
        versions.set(versionKey(id, version), await noticeAt(notices, id, version));
      }),
    );
  return readRows(rows, (id, version) => versions.get(versionKey(id, version)));
}

/** Reads and writes `outbox` (see `OutboxStore`); see the file's comment for the fence. */
export class PgOutboxStore {
  /**
   * `fence` gives the lease this replica holds now (`LeaderLease.fence`), undefined while
   * it is not the leader.
   */
  constructor(
    private readonly db: Connection,
    private readonly notices: PgNoticeStore,
    private readonly fence: () => Fence | undefined,
  ) {}

  /**
   * Queues a delivery of `rule` about `subject` to `target`; false when that one was
   * decided before (see `OutboxStore.enqueue`). Not fenced: it is written with the
   * decision that caused it, in that decision's transaction.
   */
  async enqueue(
    subject: string,
    rule: string,
    target: Target,
    payload: OutboxPayload | string,
    at: UtcIso,
    notice?: NoticeRef,
  ): Promise<boolean> {
    const result = await this.db().query(
      SQL.insert,
      enqueueValues(subject, rule, target, payload, at, notice),
    );
    return result.rowCount === 1;
  }

  /** Whether a delivery of `rule` about `subject` to `target` was ever decided. */
  async has(subject: string, rule: string, target: Target): Promise<boolean> {
    const result = await this.db().query(SQL.has, [subject, rule, targetKey(target)]);
    return (result.rowCount ?? 0) > 0;
  }

  /** Pending deliveries due at `now` and not in flight, oldest first. */
  async due(now: UtcIso, limit = 500): Promise<OutboxRow[]> {
    const { rows } = await this.db().query<Row>(SQL.due, [now, limit]);
    return readable(await readWith(this.notices, rows));
  }

  /** The deliveries to send now, by target (see `OutboxStore.ready`). */
  async ready(now: UtcIso, targets = 200, perTarget = 50): Promise<ReadyDeliveries> {
    const { rows: heads } = await this.db().query<Head>(SQL.heads, [now]);
    const open = heads
      .filter((h) => h.busy === 0 && (h.held === null || h.first < h.held))
      .sort((a, b) => a.first - b.first);
    const picked = open.slice(0, targets);
    const rows =
      picked.length === 0
        ? []
        : (
            await this.db().query<Row>(SQL.dueOf, [
              now,
              picked.map((h) => h.target),
              picked.map((h) => h.held),
              perTarget,
            ])
          ).rows;
    const reads = await readWith(this.notices, rows);
    return {
      rows: reads.flatMap((r) => (r.ok ? [declared(r.row)] : [])),
      unreadable: reads.flatMap((r) => (r.ok ? [] : [r.row])),
      more: open.length > targets,
      behind: heads.filter((h) => h.busy === 1 && h.unclaimed > 0).map((h) => h.target),
    };
  }

  /** When `ready` next gives something (see `OutboxStore.nextReadyAt`). */
  async nextReadyAt(): Promise<UtcIso | null> {
    const { rows } = await this.db().query<{ at: string | null }>(SQL.nextReadyAt);
    return rows[0]?.at ?? null;
  }

  /** Each target with deliveries waiting (see `OutboxStore.backlog`). */
  async backlog(): Promise<OutboxBacklog[]> {
    const { rows } = await this.db().query<
      Omit<OutboxBacklog, 'target'> & { target: string; target_json: string }
    >(SQL.backlog);
    return rows.map(({ target_json, target, ...rest }) => {
      const read = readStoredTarget(target_json, target);
      if (!read.ok)
        throw new StoredDataError(
          `the database holds a delivery to ${target} whose ${read.problem}`,
        );
      return { ...rest, target: read.value };
    });
  }

  /**
   * Marks deliveries as in flight, as this replica's under its term; rows another
   * transaction is claiming are left to it. Fenced: throws `not_leader` once this replica
   * no longer leads, claiming nothing.
   */
  async claim(ids: readonly number[], at: UtcIso): Promise<void> {
    await writeFenced(
      this.db,
      this.fence(),
      `the claim of ${named(ids)}`,
      ids,
      SQL.claim,
      (valid) => [at, valid],
    );
  }

  /**
   * Returns deliveries left in flight to the queue, due now (at-least-once), and says how
   * many. What is released: this replica's own claims, but those of the targets in `keep`
   * (still in flight here); and every claim made under an earlier term of the lease, a
   * former leader's (or one copied from SQLite, which records no term). So a new leader
   * releases only the dead leader's claims. Claims of the current term by another holder
   * stay; none can exist while this replica holds the term, since a claim is fenced by
   * holder and term together. Fenced: throws `not_leader` once this replica no longer
   * leads, releasing nothing.
   */
  async releaseClaims(at: UtcIso, keep: readonly string[] = []): Promise<number> {
    const what = 'the release of claimed deliveries';
    const fence = leading(this.fence(), what);
    const result = await this.db().query<Fenced>(SQL.releaseClaims, [
      ...fenceValues(fence),
      at,
      keep,
    ]);
    return written(result.rows[0], fence, what);
  }

  /** The platform confirmed: `detail` is what it answered. Fenced, as `claim`. */
  async markSent(ids: readonly number[], at: UtcIso, detail: string): Promise<void> {
    await writeFenced(
      this.db,
      this.fence(),
      `${named(ids)} marked sent`,
      ids,
      SQL.markSent,
      (valid) => [at, detail, valid],
    );
  }

  /** A temporary failure: due again at `retryAt` (see `OutboxStore.retryLater`). Fenced. */
  async retryLater(
    ids: readonly number[],
    error: string,
    retryAt: UtcIso,
    attempted = true,
    code: string | null = null,
  ): Promise<void> {
    await writeFenced(
      this.db,
      this.fence(),
      `the retry of ${named(ids)}`,
      ids,
      SQL.retryLater,
      (valid) => [retryAt, error, code, attempted ? 1 : 0, valid],
    );
  }

  /** A permanent failure, or a temporary one that lasted too long. Fenced. */
  async markDead(ids: readonly number[], error: string, code: string | null = null): Promise<void> {
    await writeFenced(
      this.db,
      this.fence(),
      `${named(ids)} marked dead`,
      ids,
      SQL.markDead,
      (valid) => [error, code, valid],
    );
  }

  /** What `status` shows: counts, the oldest pending delivery, dead ones by kind of failure. */
  async summary(): Promise<OutboxSummary> {
    const { rows: oldest } = await this.db().query<{ at: string | null }>(SQL.oldestPending);
    const { rows: dead } = await this.db().query<OutboxSummary['dead_reasons'][number]>(
      SQL.deadReasons,
    );
    return {
      ...(await this.counts()),
      oldest_pending_at: oldest[0]?.at ?? null,
      dead_reasons: dead,
    };
  }

  /** Deliveries waiting, in flight or not. */
  async pending(): Promise<number> {
    const { rows } = await this.db().query<{ n: number }>(SQL.pending);
    return rows[0]?.n ?? 0;
  }

  /** Deliveries by status. */
  async counts(): Promise<Record<OutboxStatus, number>> {
    const { rows } = await this.db().query<{ status: OutboxStatus; n: number }>(SQL.counts);
    return {
      pending: 0,
      sent: 0,
      dead: 0,
      ...Object.fromEntries(rows.map((r) => [r.status, r.n])),
    };
  }

  /** Every delivery whose subject starts with `subjectPrefix`, in the order decided. */
  async forSubject(subjectPrefix: string): Promise<OutboxRow[]> {
    const { rows } = await this.db().query<Row>(SQL.forSubject, [
      subjectPrefix,
      prefixEnd(subjectPrefix),
    ]);
    return readable(await readWith(this.notices, rows));
  }
}
