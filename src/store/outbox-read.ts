/**
 * Reading the outbox's rows back: each row's target and payload parsed from their JSON
 * (a row that cannot be read set apart with the reason, never thrown inside a delivery
 * pass), the notice version a delivery names put in its payload, and the one place the
 * payload type its writer declared (`OutboxPayloads`) is taken on trust, for showing.
 */
import type { Target } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';
import type { Notice } from '../upstream/schemas.js';
import type { NoticeStore } from './notices.js';
import type { OutboxPayload, OutboxRow } from './outbox-row.js';
import { readJson, readStoredTarget, StoredDataError } from './stored-json.js';

/**
 * The key that names a delivery: its rule, subject and target (`targetKey`), joined by
 * `|`. Each is decided once, ever; webhook delivery ids, email Message-IDs and Discord
 * nonces are made from it.
 */
export function deliveryKey(rule: string, subject: string, target: string): string {
  return `${rule}|${subject}|${target}`;
}

/** A row of `outbox` as both databases give it (`SELECT *`). */
export interface Row extends Omit<OutboxRow, 'key' | 'target' | 'payload'> {
  /** `targetKey` of the target. */
  target: string;
  target_json: string;
  payload: string;
  notice_id: number | null;
  notice_version: number | null;
  /** Who claimed it, under which term of the lease: PostgreSQL's leader only, not shown. */
  claimed_by?: string | null;
  claimed_term?: number | null;
}

/** A notice version, or the error that keeps its history from being read. */
export type NoticeAt = Notice | undefined | StoredDataError;

/** The key of a notice version among those a batch of rows names. */
export function versionKey(id: number, version: number): string {
  return `${id}:${version}`;
}

/** The notice versions rows name, each once. */
export function versionsNamed(rows: readonly Row[]): Array<{ id: number; version: number }> {
  const named = new Map<string, { id: number; version: number }>();
  for (const r of rows)
    if (r.notice_id !== null && r.notice_version !== null)
      named.set(versionKey(r.notice_id, r.notice_version), {
        id: r.notice_id,
        version: r.notice_version,
      });
  return [...named.values()];
}

/** A delivery whose target or payload cannot be read back: it can never be sent. */
export interface UnreadableDelivery {
  id: number;
  rule: string;
  subject: string;
  /** Its target, when that much can be read. */
  target: Target | undefined;
  /** `targetKey` of its target, as stored. */
  target_key: string;
  created_at: UtcIso;
  /** What cannot be read, and why: `its alert is not JSON (…)`. */
  reason: string;
}

/** A row as a delivery with its payload unchecked, or what keeps it from being read. */
export type Read = { ok: true; row: OutboxRow<unknown> } | { ok: false; row: UnreadableDelivery };

/**
 * Turns rows into deliveries, giving each that names a notice version that version as
 * its payload's `notice`; each version is read once per batch of rows. A row whose
 * target or payload cannot be read is set apart with the reason.
 */
export function reader(notices: NoticeStore): (rows: Row[]) => Read[] {
  return (rows) => {
    const versions = new Map<string, NoticeAt>();
    return readRows(rows, (id, version) => {
      const key = versionKey(id, version);
      if (!versions.has(key))
        versions.set(
          key,
          noticeAt(() => notices.at(id, version)),
        );
      return versions.get(key);
    });
  };
}

/**
 * Rows as deliveries (see `reader`), the notice versions they name given by `versionOf`:
 * read as needed on SQLite, read beforehand on PostgreSQL (`versionsNamed`).
 */
export function readRows(
  rows: readonly Row[],
  versionOf: (id: number, version: number) => NoticeAt,
): Read[] {
  return rows.map((r): Read => {
    const {
      target_json,
      payload,
      notice_id,
      notice_version,
      claimed_by: _by,
      claimed_term: _term,
      ...rest
    } = r;
    const target = readStoredTarget(target_json, r.target);
    const parsed = readJson(payload);
    if (!target.ok) return { ok: false, row: unreadable(r, target.problem) };
    if (!parsed.ok)
      return { ok: false, row: unreadable(r, `its alert ${parsed.problem}`, target.value) };
    const value = parsed.value;
    if (notice_id !== null && notice_version !== null && isObject(value)) {
      const version = versionOf(notice_id, notice_version);
      if (version instanceof StoredDataError)
        return { ok: false, row: unreadable(r, `its notice: ${version.message}`, target.value) };
      value.notice = version;
    }
    return {
      ok: true,
      row: {
        ...rest,
        key: deliveryKey(r.rule, r.subject, r.target),
        target: target.value,
        payload: value,
      },
    };
  });
}

/** A row that cannot be read, and why. */
function unreadable(r: Row, reason: string, target?: Target): UnreadableDelivery {
  return {
    id: r.id,
    rule: r.rule,
    subject: r.subject,
    target,
    target_key: r.target,
    created_at: r.created_at,
    reason,
  };
}

/** What `read` gives, or the `StoredDataError` it throws: a notice's history unreadable. */
export function noticeAt(read: () => Notice | undefined): NoticeAt {
  try {
    return read();
  } catch (error) {
    if (error instanceof StoredDataError) return error;
    throw error;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A delivery with its payload of the type its writer declared (`OutboxPayloads`). */
export function declared(row: OutboxRow<unknown>): OutboxRow {
  // The one place the declared type is taken on trust: the writer's layer checks what
  // it sends (see `ReadyDeliveries.rows`).
  return { ...row, payload: row.payload as OutboxPayload };
}

/**
 * Every row as a delivery, for whoever reads the outbox to show it (`why`, the tests);
 * throws `StoredDataError` for a row that cannot be read.
 */
export function readable(reads: readonly Read[]): OutboxRow[] {
  return reads.map((read) => {
    if (read.ok) return declared(read.row);
    const { id, subject, reason } = read.row;
    throw new StoredDataError(
      `the database holds outbox row ${id} (${subject}), which cannot be read: ${reason}`,
    );
  });
}
