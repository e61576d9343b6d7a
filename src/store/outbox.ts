/**
 * The transactional outbox: one row per delivery, written in the same transaction as the
 * decision that caused it, keyed by the alert key so a decision can never be written
 * twice. Sending reads due rows from here; delivery is at-least-once.
 *
 * The store keeps each payload as JSON text and looks inside it for one thing only: a
 * delivery about a notice names the notice version (`NoticeRef`) instead of carrying a
 * copy of it, and gets that version back as its payload's `notice` when read, so a
 * notice that fires many alerts is stored once. What a payload is otherwise belongs to
 * the layer that writes them, which says so in `OutboxPayloads` and checks what it
 * reads for sending (`ready`: payloads unchecked, rows that are not JSON set apart).
 */

import { type Target, targetKey } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';
import type { Db } from './database.js';
import type { NoticeStore } from './notices.js';
import {
  declared,
  type Read,
  type Row,
  readable,
  reader,
  type UnreadableDelivery,
} from './outbox-read.js';
import type { OutboxPayload, OutboxRow, OutboxStatus } from './outbox-row.js';
import { OUTBOX_SQL as SQL } from './outbox-sql.js';
import { readStoredTarget, StoredDataError } from './stored-json.js';

export { deliveryKey, type UnreadableDelivery } from './outbox-read.js';

export type { OutboxPayload, OutboxPayloads, OutboxRow, OutboxStatus } from './outbox-row.js';

/** The outbox as `status` shows it. */
export interface OutboxSummary extends Record<OutboxStatus, number> {
  oldest_pending_at: UtcIso | null;
  /**
   * Dead deliveries by kind of failure (`code`; null: recorded without one): how many,
   * how many distinct reasons, and the latest one's reason and decision time.
   */
  dead_reasons: Array<{
    code: string | null;
    reason: string;
    reasons: number;
    count: number;
    last_at: UtcIso;
  }>;
}

/** One target's waiting deliveries (see `OutboxStore.backlog`). */
export interface OutboxBacklog {
  target: Target;
  pending: number;
  in_flight: number;
  /** When the oldest waiting delivery was decided, and so fell due. */
  oldest_at: UtcIso;
  /** The error of the first waiting delivery that failed, if any did. */
  last_error: string | null;
}

/** The notice version a delivery is about, stored in place of a copy of the notice. */
export interface NoticeRef {
  id: number;
  version: number;
}

/**
 * The values `enqueue` writes, in the order both databases' insert statements bind them:
 * subject, rule, target key, target, payload, due at, decided at, notice id and version.
 */
export function enqueueValues(
  subject: string,
  rule: string,
  target: Target,
  payload: OutboxPayload | string,
  at: UtcIso,
  notice: NoticeRef | undefined,
): [string, string, string, string, string, UtcIso, UtcIso, number | null, number | null] {
  return [
    subject,
    rule,
    targetKey(target),
    JSON.stringify(target),
    typeof payload === 'string' ? payload : JSON.stringify(payload),
    at,
    at,
    notice?.id ?? null,
    notice?.version ?? null,
  ];
}

type At = { at: string | null };

/** A target with deliveries waiting, as `heads` reads it (on either database). */
export interface Head {
  target: string;
  /** 1: a delivery of it is in flight. */
  busy: number;
  /** The first delivery not due yet; the target's later ones wait behind it. */
  held: number | null;
  first: number;
  /** Deliveries not in flight. */
  unclaimed: number;
}

/** What `ready` found. */
export interface ReadyDeliveries {
  /**
   * The deliveries to send now, oldest first: every one a target has waiting, up to a
   * bound. Their payloads are as parsed from JSON: the layer that wrote them checks them
   * before they are sent (`OutboxPayloads`).
   */
  rows: OutboxRow[];
  /** Deliveries among them whose target or payload is not JSON: for the dead. */
  unreadable: UnreadableDelivery[];
  /** More targets have deliveries ready than were given. */
  more: boolean;
  /** Targets (`targetKey`) with a delivery in flight and others waiting behind it. */
  behind: string[];
}

/**
 * The least text after every text that starts with `prefix`, as SQLite compares text
 * (the bytes of UTF-8, so by code point): `prefix` with its last character's code point
 * one higher, the surrogates skipped. A last U+10FFFF has no successor: then the end of
 * the prefix without it. (The empty prefix ends at U+10FFFF.)
 */
export function prefixEnd(prefix: string): string {
  const chars = [...prefix];
  const code = chars.pop()?.codePointAt(0);
  if (code === undefined) return '\u{10FFFF}';
  if (code === 0x10ffff) return prefixEnd(chars.join(''));
  return chars.join('') + String.fromCodePoint(code === 0xd7ff ? 0xe000 : code + 1);
}

function prepareAll(db: Db) {
  return {
    insert: db.prepare<
      [string, string, string, string, string, string, string, number | null, number | null]
    >(SQL.insert),
    has: db.prepare<[string, string, string]>(SQL.has),
    due: db.prepare<[string, number], Row>(SQL.due),
    heads: db.prepare<[string], Head>(SQL.heads),
    dueOf: db.prepare<[string, string], Row>(SQL.dueOf),
    pending: db.prepare<[], { n: number }>(SQL.pending),
    nextReadyAt: db.prepare<[], At>(SQL.nextReadyAt),
    backlog: db.prepare<
      [],
      Omit<OutboxBacklog, 'target'> & { target: string; target_json: string }
    >(SQL.backlog),
    claim: db.prepare(SQL.claim),
    releaseClaims: db.prepare<[string, string]>(SQL.releaseClaims),
    markSent: db.prepare(SQL.markSent),
    retryLater: db.prepare(SQL.retryLater),
    markDead: db.prepare(SQL.markDead),
    oldestPending: db.prepare<[], At>(SQL.oldestPending),
    deadReasons: db.prepare<[], OutboxSummary['dead_reasons'][number]>(SQL.deadReasons),
    counts: db.prepare<[], { status: OutboxStatus; n: number }>(SQL.counts),
    forSubject: db.prepare<[string, string], Row>(SQL.forSubject),
  };
}

type Statement = ReturnType<typeof prepareAll>['claim'];

/** Reads and writes `outbox`; every statement is prepared once, when the store opens. */
export class OutboxStore {
  private readonly sql: ReturnType<typeof prepareAll>;
  private readonly runEach: (
    statement: Statement,
    ids: readonly number[],
    params: Record<string, unknown>,
  ) => void;

  private readonly read: (rows: Row[]) => Read[];

  constructor(db: Db, notices: NoticeStore) {
    this.sql = prepareAll(db);
    this.read = reader(notices);
    this.runEach = db.transaction(
      (statement: Statement, ids: readonly number[], params: Record<string, unknown>) => {
        for (const id of ids) statement.run({ ...params, id });
      },
    );
  }

  /**
   * Queues a delivery of `rule` about `subject` to `target`; false when that one was
   * decided before (nothing is written). `payload` may come serialised, when one payload
   * goes to many targets. With `notice`, the payload's own `notice` is left out of what is
   * stored (pass it serialised without it) and that version of the stored notice takes
   * its place when the row is read.
   */
  enqueue(
    subject: string,
    rule: string,
    target: Target,
    payload: OutboxPayload | string,
    at: UtcIso,
    notice?: NoticeRef,
  ): boolean {
    const result = this.sql.insert.run(
      ...enqueueValues(subject, rule, target, payload, at, notice),
    );
    return result.changes === 1;
  }

  /** Whether a delivery of `rule` about `subject` to `target` was ever decided. */
  has(subject: string, rule: string, target: Target): boolean {
    return this.sql.has.get(subject, rule, targetKey(target)) !== undefined;
  }

  /** Pending deliveries due at `now` and not in flight, oldest first. */
  due(now: UtcIso, limit = 500): OutboxRow[] {
    return readable(this.read(this.sql.due.all(now, limit)));
  }

  /**
   * The deliveries to send now, by target, the targets whose first waiting delivery is
   * oldest first: at most `targets` targets, each with every delivery it has waiting (up
   * to `perTarget`), so that what waits together goes out together (a digest), however
   * many other targets a burst wrote to. Each target's alerts stay in order: a target
   * with a delivery in flight gives none (it is never claimed twice), and one whose
   * earliest waiting delivery is not due yet (a retry) gives only what came before it, so
   * a new alert never overtakes one waiting for a retry.
   */
  ready(now: UtcIso, targets = 200, perTarget = 50): ReadyDeliveries {
    const heads = this.sql.heads.all(now);
    const open = heads
      .filter((h) => h.busy === 0 && (h.held === null || h.first < h.held))
      .sort((a, b) => a.first - b.first);
    const picked = new Map(open.slice(0, targets).map((h) => [h.target, h.held]));
    const taken = new Map<string, number>();
    const rows: Row[] = [];
    if (picked.size > 0)
      for (const row of this.sql.dueOf.iterate(now, JSON.stringify([...picked.keys()]))) {
        const held = picked.get(row.target) ?? null;
        const n = taken.get(row.target) ?? 0;
        if ((held !== null && row.id > held) || n >= perTarget) continue;
        taken.set(row.target, n + 1);
        rows.push(row);
      }
    const reads = this.read(rows);
    return {
      rows: reads.flatMap((r) => (r.ok ? [declared(r.row)] : [])),
      unreadable: reads.flatMap((r) => (r.ok ? [] : [r.row])),
      more: open.length > targets,
      behind: heads.filter((h) => h.busy === 1 && h.unclaimed > 0).map((h) => h.target),
    };
  }

  /**
   * When `ready` next gives something: the earliest due time of the first waiting
   * delivery of each target with none in flight; null when no such target exists.
   */
  nextReadyAt(): UtcIso | null {
    return this.sql.nextReadyAt.get()?.at ?? null;
  }

  /**
   * Each target with deliveries waiting: how many, how many in flight, when the oldest
   * was decided and the error of the first that failed, for health, `status` and metrics.
   */
  backlog(): OutboxBacklog[] {
    return this.sql.backlog.all().map(({ target_json, target, ...rest }) => {
      const read = readStoredTarget(target_json, target);
      if (!read.ok)
        throw new StoredDataError(
          `the database holds a delivery to ${target} whose ${read.problem}`,
        );
      return { ...rest, target: read.value };
    });
  }

  /**
   * Marks deliveries as in flight. A claim is committed before the send, so a crash
   * between the send and its confirmation leaves the claim behind for `releaseClaims`.
   */
  claim(ids: readonly number[], at: UtcIso): void {
    this.runEach(this.sql.claim, ids, { at });
  }

  /**
   * Returns deliveries left in flight by a crash or a failed pass to the queue, due
   * now: they are sent again (at-least-once). Claims of the targets in `keep`, still in
   * flight, stay. Returns how many were released.
   */
  releaseClaims(at: UtcIso, keep: readonly string[] = []): number {
    return this.sql.releaseClaims.run(at, JSON.stringify(keep)).changes;
  }

  /** The platform confirmed: `detail` is what it answered. */
  markSent(ids: readonly number[], at: UtcIso, detail: string): void {
    this.runEach(this.sql.markSent, ids, { at, detail });
  }

  /**
   * A temporary failure: due again at `retryAt`. `attempted` false: these were not sent
   * (another delivery to the same target failed first), so no attempt is counted.
   */
  retryLater(
    ids: readonly number[],
    error: string,
    retryAt: UtcIso,
    attempted = true,
    code: string | null = null,
  ): void {
    this.runEach(this.sql.retryLater, ids, { error, code, retryAt, n: attempted ? 1 : 0 });
  }

  /** A permanent failure, or a temporary one that lasted too long: never tried again. */
  markDead(ids: readonly number[], error: string, code: string | null = null): void {
    this.runEach(this.sql.markDead, ids, { error, code });
  }

  /** What `status` shows: counts, the oldest pending delivery, dead ones by kind of failure. */
  summary(): OutboxSummary {
    const oldest = this.sql.oldestPending.get();
    const dead = this.sql.deadReasons.all();
    return {
      ...this.counts(),
      oldest_pending_at: oldest?.at ?? null,
      dead_reasons: dead,
    };
  }

  /** Deliveries waiting, in flight or not: counted through the index by status. */
  pending(): number {
    return this.sql.pending.get()?.n ?? 0;
  }

  /** Deliveries by status: a pass over every row kept. */
  counts(): Record<OutboxStatus, number> {
    const rows = this.sql.counts.all();
    return {
      pending: 0,
      sent: 0,
      dead: 0,
      ...Object.fromEntries(rows.map((r) => [r.status, r.n])),
    };
  }

  /**
   * Every delivery whose subject starts with `subjectPrefix` (`notice:101:`), in the order
   * decided, for `why`: a range of the unique index.
   */
  forSubject(subjectPrefix: string): OutboxRow[] {
    return readable(this.read(this.sql.forSubject.all(subjectPrefix, prefixEnd(subjectPrefix))));
  }
}
