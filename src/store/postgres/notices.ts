/**
 * Notices on PostgreSQL, with the methods of `NoticeStore` (`../notices.ts`) that the
 * asynchronous store offers (`LEFT_OUT`: not the generators, nor `forgetWrittenWords`),
 * each answering a promise of what the SQLite one returns. What a notice is stored as
 * (hash, body, history, versions undone) is decided by the functions `notices.ts` exports,
 * so the two stores cannot drift apart; this module only says it in PostgreSQL.
 *
 * Statements per upserted notice, its meta given (`metaOf`, one statement a page): a new
 * one (or one back from its tombstone) is one statement (the row, its words, the
 * tombstone removed, together), plus what `inserted` runs; an unchanged one is one; an
 * updated one two (the previous version read, then the row, its history and its words
 * written together). Without the meta, one more, to look it up.
 *
 * No cache of the words written to `notice_words` (the SQLite store keeps one): each
 * notice stored or changed writes its three words in the statement that writes the
 * notice, where a word already there costs an index probe and no write. A cache would
 * save nothing in round trips, and would have to be forgotten when a transaction rolls
 * back; several replicas, each with its own, would make that harder still.
 */
import type { UtcIso } from '../../lib/time.js';
import type { Notice } from '../../upstream/schemas.js';
import { expectRow } from '../database.js';
import { encodeBody } from '../notice-body.js';
import {
  changeOf,
  fieldsUnknown,
  metaOfRow,
  NOTICE_COLUMNS,
  type NoticeHistoryRow,
  type NoticeMeta,
  type NoticeRow,
  type NoticeSummary,
  type NoticeVersion,
  noticeAtVersion,
  noticeHash,
  noticeOfRow,
  pickNotice,
  reinsertion,
  type StoredNotice,
  SUPERSEDED_WINDOW,
  type UpsertResult,
  versionsBefore,
  WORD_FIELDS,
} from '../notices.js';
import type { RefreshObservation } from '../refresh-observations.js';
import { type Connection, canBeId } from './queryable.js';

/** How many notices `visitPostedSince` reads at a time. */
const VISIT_PAGE = 500;

/** A meta as the statements below read it (the hash of a tombstone in hex, as noticeHash gives). */
type MetaRow = Omit<NoticeMeta, 'tombstone'> & { tombstone: boolean };

/**
 * The words of a notice (`WORD_FIELDS`) written to `notice_words`, from the parameters
 * `$first` (the fields) and `$first + 1` (the words): lower-cased as SQLite's lower()
 * does (ASCII only, the "C" collation), blanks left out, each once.
 */
function insertWords(first: number): string {
  return `INSERT INTO notice_words (field, word)
    SELECT field, lower(word COLLATE "C") FROM unnest($${first}::text[], $${first + 1}::text[]) AS w (field, word)
    WHERE word <> ''
    ON CONFLICT DO NOTHING`;
}

/** The parameters of `insertWords` for a notice. */
function wordValues(notice: Notice): [string[], string[]] {
  return [[...WORD_FIELDS], WORD_FIELDS.map((f) => notice[f])];
}

/** The columns an insert writes, in order, after the notice's own (`NOTICE_COLUMNS`). */
const COLUMNS = NOTICE_COLUMNS.join(', ');
const N = NOTICE_COLUMNS.length;
/** `$1 … $N`: the notice's columns. */
const PARAMS = NOTICE_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');

/**
 * A notice inserted (new, or back from its tombstone, which goes) with its words: the
 * notice's columns, then body, hash, version, seen at, baseline, the words.
 */
const INSERT = `WITH tombstone AS (DELETE FROM notice_tombstones WHERE id = $1),
  words AS (${insertWords(N + 6)})
  INSERT INTO notices (${COLUMNS}, notice, html, mobile, body, content_hash, version, first_seen_at,
    last_seen_at, last_changed_at, baseline)
  VALUES (${PARAMS}, '', '', '', $${N + 1}, $${N + 2}, $${N + 3}, $${N + 4}, $${N + 4}, $${N + 4}, $${N + 5})`;

/**
 * A notice changed, with its history and words: the notice's columns, then body, hash,
 * seen at, the words, then the history's version, changed fields, previous and body.
 */
const UPDATE = `WITH words AS (${insertWords(N + 4)}),
  history AS (INSERT INTO notice_history (notice_id, version, changed_at, changed_fields, previous, body)
    VALUES ($1, $${N + 6}, $${N + 3}, $${N + 7}, $${N + 8}, $${N + 9}))
  UPDATE notices SET ${NOTICE_COLUMNS.map((f, i) => (f === 'id' ? '' : `${f} = $${i + 1}, `)).join('')}
    notice = '', html = '', mobile = '', body = $${N + 1}, pruned_at = NULL, content_hash = $${N + 2},
    version = version + 1, last_seen_at = $${N + 3}, last_changed_at = $${N + 3}
  WHERE id = $1`;

/** A notice's meta, from its row or else its tombstone, for each of the ids `$1`. */
const METAS = `SELECT ids.id, coalesce(n.content_hash, encode(t.content_hash, 'hex')) AS content_hash,
    coalesce(n.version, t.version) AS version, n.pruned_at, n.id IS NULL AS tombstone
  FROM unnest($1::bigint[]) AS ids (id)
    LEFT JOIN notices AS n ON n.id = ids.id
    LEFT JOIN notice_tombstones AS t ON n.id IS NULL AND t.id = ids.id
  WHERE n.id IS NOT NULL OR t.id IS NOT NULL`;

/**
 * A notice with its history from version `$2` on, the latest first, in one statement: the
 * changes as JSON, their bodies in base64.
 */
const WITH_CHANGES = `SELECT n.*, (
    SELECT coalesce(json_agg(json_build_object('version', h.version, 'changed_at', h.changed_at,
        'changed_fields', h.changed_fields, 'previous', h.previous, 'body', encode(h.body, 'base64'))
      ORDER BY h.version DESC), '[]')
    FROM notice_history h WHERE h.notice_id = n.id AND h.version >= $2::numeric) AS changes
  FROM notices n WHERE n.id = $1`;

type ChangeJson = Omit<NoticeHistoryRow, 'body'> & { body: string | null };

/** A notice and its changes from `version` on, the latest first, in one statement. */
async function withChanges(
  db: Connection,
  id: number,
  version: number,
): Promise<{ current: StoredNotice; changes: NoticeHistoryRow[] } | undefined> {
  if (!canBeId(id)) return undefined;
  const { rows } = await db().query<NoticeRow & { changes: ChangeJson[] }>(WITH_CHANGES, [
    id,
    version,
  ]);
  const row = rows[0];
  if (!row) return undefined;
  const { changes, ...notice } = row;
  return {
    current: noticeOfRow(notice),
    changes: changes.map((c) => ({
      ...c,
      body: c.body === null ? null : Buffer.from(c.body, 'base64'),
    })),
  };
}

/** Reads and writes `notices`, `notice_history`, `notice_words` and `notice_tombstones`. */
export class PgNoticeStore {
  /**
   * `inserted` hears of each notice whose row this store inserts, awaited before `upsert`
   * answers, in the same transaction when there is one: the reminders give it to those
   * that waited for it (`PgReminderStore.noticeStored`).
   */
  constructor(
    private readonly db: Connection,
    private readonly inserted?: (notice: Notice) => Promise<void>,
  ) {}

  /** What is stored of each of these notices, by id, read in one statement (see `NoticeStore.metaOf`). */
  async metaOf(ids: readonly number[]): Promise<Map<number, NoticeMeta>> {
    const found = new Map<number, NoticeMeta>();
    const valid = ids.filter(canBeId);
    if (valid.length === 0) return found;
    const { rows } = await this.db().query<MetaRow & { id: number }>(METAS, [valid]);
    for (const { id, ...meta } of rows) found.set(id, metaOfRow(meta));
    return found;
  }

  /** Whether retention removed notice `id`, keeping only its tombstone. */
  async wasPruned(id: number): Promise<boolean> {
    return (await this.metaOf([id])).get(id)?.tombstone === true;
  }

  /**
   * Stores a notice as the API sent it and classifies it (see `NoticeStore.upsert`); the
   * statements it costs are in the file's comment.
   */
  async upsert(
    notice: Notice,
    seenAt: UtcIso,
    baseline: boolean,
    stored?: NoticeMeta | null,
  ): Promise<UpsertResult> {
    const hash = noticeHash(notice);
    const known = stored === undefined ? (await this.metaOf([notice.id])).get(notice.id) : stored;
    const columns = NOTICE_COLUMNS.map((f) => notice[f]);
    if (!known || known.tombstone) {
      const result = reinsertion(known, hash);
      await this.db().query(INSERT, [
        ...columns,
        encodeBody(notice),
        hash,
        result.version,
        seenAt,
        baseline ? 1 : 0,
        ...wordValues(notice),
      ]);
      await this.inserted?.(notice);
      return result;
    }
    if (known.content_hash === hash) {
      if (known.pruned_at)
        await this.db().query(
          'UPDATE notices SET body = $1, pruned_at = NULL, last_seen_at = $2 WHERE id = $3',
          [encodeBody(notice), seenAt, notice.id],
        );
      else
        await this.db().query('UPDATE notices SET last_seen_at = $1 WHERE id = $2', [
          seenAt,
          notice.id,
        ]);
      return fieldsUnknown('unchanged', known.version);
    }
    const previous = pickNotice(
      expectRow(await this.get(notice.id), `notice ${notice.id}, read as known`),
    );
    const { changedFields, history } = changeOf(previous, notice, known.pruned_at);
    await this.db().query(UPDATE, [
      ...columns,
      encodeBody(notice),
      hash,
      seenAt,
      ...wordValues(notice),
      known.version,
      history.changed_fields,
      history.previous,
      history.body,
    ]);
    return { change: 'updated', version: known.version + 1, changedFields, previous };
  }

  /** One stored notice. */
  async get(id: number): Promise<StoredNotice | undefined> {
    if (!canBeId(id)) return undefined;
    const { rows } = await this.db().query<NoticeRow>('SELECT * FROM notices WHERE id = $1', [id]);
    return rows[0] && noticeOfRow(rows[0]);
  }

  /**
   * The notice exactly as it was at `version` (see `NoticeStore.at`), read with the
   * history it needs in one statement. Throws `StoredDataError` when its history cannot
   * be read back.
   */
  async at(id: number, version: number): Promise<Notice | undefined> {
    const found = await withChanges(this.db, id, version);
    return found && noticeAtVersion(found.current, version, found.changes);
  }

  /** The versions a notice had before its current one, oldest first, each whole. */
  async history(id: number): Promise<NoticeVersion[]> {
    const found = await withChanges(this.db, id, 0);
    return found ? versionsBefore(found.current, found.changes) : [];
  }

  /**
   * The stored notices whose pipeline's own identifier is `identifier`, letter case aside
   * (ASCII, as SQLite's NOCASE), of `pipeline` only when given, latest first, at most
   * `limit` (see `NoticeStore.withIdentifier`).
   */
  async withIdentifier(
    identifier: string,
    pipeline?: string,
    limit = 50,
  ): Promise<NoticeSummary[]> {
    const { rows } = await this.db().query<NoticeSummary>(
      `SELECT id, pipeline_slug, identifier, subject, posted_at FROM notices
       WHERE lower(identifier) = lower($1 COLLATE "C") AND ($2::text IS NULL OR pipeline_slug = $2)
       ORDER BY posted_at DESC NULLS LAST, id DESC LIMIT $3`,
      // A negative limit is none, as on SQLite.
      [identifier, pipeline ?? null, Number.isSafeInteger(limit) && limit >= 0 ? limit : null],
    );
    return rows;
  }

  /**
   * The notice a notice of `pipeline` posted at `postedAt` replaces when it says it
   * supersedes `identifier`, looked for among the `window` notices posted last up to then
   * (see `NoticeStore.supersededBy`).
   */
  async supersededBy(
    pipeline: string,
    identifier: string,
    exceptId: number,
    postedAt: string | null,
    window = SUPERSEDED_WINDOW,
  ): Promise<number | undefined> {
    const { rows } = await this.db().query<{ id: number }>(
      `SELECT id FROM notices
       WHERE posted_at <= $4
         AND posted_at >= coalesce((SELECT posted_at FROM notices WHERE posted_at <= $4
           ORDER BY posted_at DESC LIMIT 1 OFFSET greatest($5::bigint - 1, 0)), '')
         AND pipeline_slug = $1 AND lower(identifier) = lower($2 COLLATE "C") AND ($3::bigint IS NULL OR id <> $3)
       ORDER BY posted_at DESC, id DESC LIMIT 1`,
      [pipeline, identifier, canBeId(exceptId) ? exceptId : null, postedAt ?? '9999', window],
    );
    return rows[0]?.id;
  }

  /** Number of stored notices. */
  async count(): Promise<number> {
    const { rows } = await this.db().query<{ n: number }>('SELECT count(*) AS n FROM notices');
    return rows[0]?.n ?? 0;
  }

  /** What the newest notices say about when the API refreshes (see `NoticeStore.refreshObservations`). */
  async refreshObservations(since: UtcIso, scan = 500): Promise<RefreshObservation[]> {
    const { rows } = await this.db().query<{
      createdAt: UtcIso;
      firstSeenAt: UtcIso;
      baseline: number;
    }>(
      `SELECT service_created_at AS "createdAt", first_seen_at AS "firstSeenAt", baseline
         FROM (SELECT id, service_created_at, first_seen_at, baseline
                 FROM notices ORDER BY id DESC LIMIT $2) newest
        WHERE service_created_at IS NOT NULL
          AND (CASE baseline WHEN 0 THEN first_seen_at ELSE service_created_at END) >= $1
        ORDER BY id DESC`,
      [since, Math.max(0, Math.trunc(scan))],
    );
    return rows.map((row) => ({ ...row, baseline: row.baseline !== 0 }));
  }

  /**
   * The distinct pipeline, type, category and status of the notices seen at or after
   * `since`, and each pipeline of the capacity cycles seen then (see
   * `NoticeStore.fieldsSeenSince`), in order.
   */
  async fieldsSeenSince(
    since: UtcIso,
  ): Promise<Array<{ pipeline: string; type: string; category: string; status: string }>> {
    const { rows } = await this.db().query<{
      pipeline: string;
      type: string;
      category: string;
      status: string;
    }>(
      `SELECT DISTINCT pipeline_slug AS pipeline, type, category, status FROM notices
         WHERE last_seen_at >= $1
       UNION
       SELECT DISTINCT pipeline_slug, '', '', '' FROM capacity_cycles WHERE last_seen_at >= $1
       ORDER BY 1, 2, 3, 4`,
      [since],
    );
    return rows;
  }

  /** The distinct types, categories and statuses of the stored notices, in lower case. */
  async vocabulary(): Promise<{ types: string[]; categories: string[]; statuses: string[] }> {
    const { rows } = await this.db().query<{
      field: (typeof WORD_FIELDS)[number];
      word: string;
    }>('SELECT field, word FROM notice_words ORDER BY field, word');
    const of = (field: (typeof WORD_FIELDS)[number]) =>
      rows.filter((w) => w.field === field).map((w) => w.word);
    return { types: of('type'), categories: of('category'), statuses: of('status') };
  }

  /**
   * Hands `visit` each notice posted at or after `since` (of `pipelines`, when given),
   * latest first: read `VISIT_PAGE` at a time, each page after the last one's posting
   * time and id, so a long window costs no more memory than a short one. Unlike SQLite's,
   * the pages are separate statements: outside a transaction, a notice stored meanwhile
   * may be given or not.
   */
  async visitPostedSince(
    since: UtcIso,
    pipelines: readonly string[] | undefined,
    visit: (notice: StoredNotice) => void,
  ): Promise<void> {
    let after: { posted_at: string; id: number } | undefined;
    for (;;) {
      const { rows } = await this.db().query<NoticeRow>(
        `SELECT * FROM notices
         WHERE posted_at >= $1 AND ($2::text[] IS NULL OR pipeline_slug = ANY ($2))
           AND ($3::text IS NULL OR (posted_at, id) < ($3, $4))
         ORDER BY posted_at DESC, id DESC LIMIT $5`,
        [since, pipelines ?? null, after?.posted_at ?? null, after?.id ?? 0, VISIT_PAGE],
      );
      for (const row of rows) visit(noticeOfRow(row));
      const last = rows.at(-1);
      if (rows.length < VISIT_PAGE || !last?.posted_at) return;
      after = { posted_at: last.posted_at, id: last.id };
    }
  }

  /** The notices whose `end_at` falls in `(after, until]`, for the incidents their end closes. */
  async endedBetween(after: UtcIso, until: UtcIso): Promise<StoredNotice[]> {
    const { rows } = await this.db().query<NoticeRow>(
      'SELECT * FROM notices WHERE end_at > $1 AND end_at <= $2 ORDER BY end_at, id',
      [after, until],
    );
    return rows.map(noticeOfRow);
  }

  /** The ids of the notices posted at or after `since`, latest first, without their text. */
  async idsPostedSince(since: UtcIso): Promise<number[]> {
    const { rows } = await this.db().query<{ id: number }>(
      'SELECT id FROM notices WHERE posted_at >= $1 ORDER BY posted_at DESC, id DESC',
      [since],
    );
    return rows.map((r) => r.id);
  }
}
