/**
 * Notices as stored: every field of the API plus when pipewatch first and last saw the
 * notice, a content hash, a version count and the history of its changes. `upsert`
 * decides whether what the API sent is new, an update or nothing new; that decision is
 * what the rest of pipewatch acts on.
 */
import { createHash } from 'node:crypto';
import type { UtcIso } from '../lib/time.js';
import type { Notice } from '../upstream/schemas.js';
import { type Db, statement } from './database.js';

/** What an upsert found. */
export type NoticeChange = 'new' | 'updated' | 'unchanged';

/** A notice with pipewatch's own bookkeeping. */
export interface StoredNotice extends Notice {
  content_hash: string;
  version: number;
  first_seen_at: UtcIso;
  last_seen_at: UtcIso;
  last_changed_at: UtcIso;
  /** First stored by the baseline sync; such a notice never alerts as new. */
  baseline: boolean;
}

/** The result of storing one notice. */
export interface UpsertResult {
  change: NoticeChange;
  version: number;
  /** For `updated`: the fields whose values changed. */
  changedFields: (keyof Notice)[];
  /** For `updated`: the version it replaced. */
  previous: Notice | undefined;
}

/** One past version of a notice. */
export interface NoticeVersion {
  version: number;
  changed_at: UtcIso;
  changed_fields: string[];
  previous: Notice;
}

const FIELDS = [
  'id',
  'pipeline_id',
  'pipeline_name',
  'pipeline_slug',
  'pipeline_url',
  'subject',
  'identifier',
  'url',
  'category',
  'type',
  'status',
  'notice',
  'html',
  'mobile',
  'posted_at',
  'effective_at',
  'end_at',
  'response_at',
  'service_created_at',
  'service_updated_at',
] as const satisfies readonly (keyof Notice)[];

/** The hash that tells one version of a notice from another: every field the API sent. */
export function noticeHash(notice: Notice): string {
  const h = createHash('sha256');
  for (const field of FIELDS) {
    h.update(String(notice[field] ?? '\u0000'));
    h.update('\u0001');
  }
  return h.digest('hex').slice(0, 32);
}

interface Row extends Omit<StoredNotice, 'baseline'> {
  baseline: number;
}

function fromRow(row: Row): StoredNotice {
  return { ...row, baseline: row.baseline === 1 };
}

function pick(row: Row | Notice): Notice {
  return Object.fromEntries(FIELDS.map((f) => [f, row[f]])) as unknown as Notice;
}

/** Reads and writes the `notices` and `notice_history` tables. */
export class NoticeStore {
  private readonly selectMeta;
  private readonly selectFull;
  private readonly insert;
  private readonly update;
  private readonly touch;
  private readonly insertHistory;
  private readonly selectOthersByIdentifier;

  constructor(private readonly db: Db) {
    const columns = FIELDS.join(', ');
    const params = FIELDS.map((f) => `@${f}`).join(', ');
    this.selectMeta = db.prepare<[number], { content_hash: string; version: number }>(
      'SELECT content_hash, version FROM notices WHERE id = ?',
    );
    this.selectFull = db.prepare<[number], Row>('SELECT * FROM notices WHERE id = ?');
    this.insert = db.prepare(
      `INSERT INTO notices (${columns}, content_hash, version, first_seen_at, last_seen_at, last_changed_at, baseline)
       VALUES (${params}, @content_hash, 1, @seen_at, @seen_at, @seen_at, @baseline)`,
    );
    this.update = db.prepare(
      `UPDATE notices SET ${FIELDS.filter((f) => f !== 'id')
        .map((f) => `${f} = @${f}`)
        .join(', ')},
         content_hash = @content_hash, version = version + 1, last_seen_at = @seen_at, last_changed_at = @seen_at
       WHERE id = @id`,
    );
    this.touch = db.prepare('UPDATE notices SET last_seen_at = ? WHERE id = ?');
    this.insertHistory = db.prepare(
      'INSERT INTO notice_history (notice_id, version, changed_at, changed_fields, previous) VALUES (?, ?, ?, ?, ?)',
    );
    this.selectOthersByIdentifier = db.prepare<[string, string, number], { id: number }>(
      'SELECT id FROM notices WHERE pipeline_slug = ? AND identifier = ? AND id != ?',
    );
  }

  /**
   * Stores a notice as the API sent it and classifies it. Call inside a transaction
   * together with whatever acts on the result.
   */
  upsert(notice: Notice, seenAt: UtcIso, baseline: boolean): UpsertResult {
    const hash = noticeHash(notice);
    const known = this.selectMeta.get(notice.id);
    if (!known) {
      this.insert.run({
        ...notice,
        content_hash: hash,
        seen_at: seenAt,
        baseline: baseline ? 1 : 0,
      });
      return { change: 'new', version: 1, changedFields: [], previous: undefined };
    }
    if (known.content_hash === hash) {
      this.touch.run(seenAt, notice.id);
      return {
        change: 'unchanged',
        version: known.version,
        changedFields: [],
        previous: undefined,
      };
    }
    const previous = pick(this.selectFull.get(notice.id)!);
    const changedFields = FIELDS.filter((f) => previous[f] !== notice[f]);
    this.update.run({ ...notice, content_hash: hash, seen_at: seenAt });
    this.insertHistory.run(
      notice.id,
      known.version,
      seenAt,
      JSON.stringify(changedFields),
      JSON.stringify(previous),
    );
    return { change: 'updated', version: known.version + 1, changedFields, previous };
  }

  /** One stored notice. */
  get(id: number): StoredNotice | undefined {
    const row = this.selectFull.get(id);
    return row ? fromRow(row) : undefined;
  }

  /**
   * The ids of a pipeline's other notices that carry `identifier` (the pipeline's own
   * notice number), so a notice can name the ones it supersedes.
   */
  idsByIdentifier(pipelineSlug: string, identifier: string, exceptId: number): number[] {
    return this.selectOthersByIdentifier.all(pipelineSlug, identifier, exceptId).map((r) => r.id);
  }

  /** The versions a notice had before its current one, oldest first. */
  history(id: number): NoticeVersion[] {
    return statement<
      [number],
      { version: number; changed_at: string; changed_fields: string; previous: string }
    >(
      this.db,
      'SELECT version, changed_at, changed_fields, previous FROM notice_history WHERE notice_id = ? ORDER BY version',
    )
      .all(id)
      .map((r) => ({
        version: r.version,
        changed_at: r.changed_at,
        changed_fields: JSON.parse(r.changed_fields) as string[],
        previous: JSON.parse(r.previous) as Notice,
      }));
  }

  /** Number of stored notices. */
  count(): number {
    return (statement(this.db, 'SELECT count(*) AS n FROM notices').get() as { n: number }).n;
  }

  /** The distinct types, categories and statuses of the stored notices, in lower case. */
  vocabulary(): { types: string[]; categories: string[]; statuses: string[] } {
    const column = (name: 'type' | 'category' | 'status') =>
      statement<[], { v: string }>(
        this.db,
        `SELECT DISTINCT lower(${name}) AS v FROM notices WHERE ${name} <> '' ORDER BY v`,
      )
        .all()
        .map((r) => r.v);
    return { types: column('type'), categories: column('category'), statuses: column('status') };
  }

  /**
   * Notices of these pipelines posted at or after `since`, latest first, through the
   * pipeline index: what a new subscription would have matched. Streamed row by row, so
   * a long window costs no more memory than a short one and nothing is left out; a caller
   * that shows only some of them counts the rest itself.
   */
  *postedSinceIn(since: UtcIso, pipelines: readonly string[]): Generator<StoredNotice> {
    const rows = statement<[string, string], Row>(
      this.db,
      `SELECT * FROM notices WHERE pipeline_slug IN (SELECT value FROM json_each(?)) AND posted_at >= ?
       ORDER BY posted_at DESC, id DESC`,
    ).iterate(JSON.stringify(pipelines), since);
    for (const row of rows) yield fromRow(row);
  }

  /**
   * Every notice posted at or after `since`, latest first, streamed row by row (see
   * `postedSinceIn`). While it runs the connection reads but cannot write.
   */
  *postedSince(since: UtcIso): Generator<StoredNotice> {
    const rows = statement<[string], Row>(
      this.db,
      'SELECT * FROM notices WHERE posted_at >= ? ORDER BY posted_at DESC, id DESC',
    ).iterate(since);
    for (const row of rows) yield fromRow(row);
  }

  /** The ids of the notices `postedSince(since)` gives, without their text. */
  idsPostedSince(since: UtcIso): number[] {
    return statement<[string], { id: number }>(
      this.db,
      'SELECT id FROM notices WHERE posted_at >= ?',
    )
      .all(since)
      .map((r) => r.id);
  }
}
