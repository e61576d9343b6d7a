/**
 * Notices as stored: every field of the API plus when pipewatch first and last saw the
 * notice, a content hash, a version count and the history of its changes. `upsert`
 * decides whether what the API sent is new, an update or nothing new; that decision is
 * what the rest of pipewatch acts on.
 *
 * The three text forms live in one compressed `body` (see `notice-body.ts`); the
 * `notice`, `html` and `mobile` columns of the schema stay, empty. The history keeps, for
 * each past version, only the previous values of the fields that changed (texts as a
 * body), so any version is the current row with the later changes undone.
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import type { UtcIso } from '../lib/time.js';
import { type Notice, StoredNoticeSchema } from '../upstream/schemas.js';
import { type Db, expectRow, statement } from './database.js';
import { decodeBody, encodeBody, TEXT_FIELDS } from './notice-body.js';
import { type RefreshObservation, recentRefreshObservations } from './refresh-observations.js';
import { parseStored } from './stored-json.js';

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
  /**
   * When `PIPEWATCH_RETENTION` pruned its text; its texts then say so (`prunedText`) and
   * every other field is kept. Null while the text is stored.
   */
  text_pruned_at?: UtcIso | null;
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

/** What the store keeps of a notice to tell whether the API's copy of it is new. */
export interface NoticeMeta {
  content_hash: string;
  version: number;
  pruned_at: string | null;
  /** Retention removed its row and kept only this: it is stored again when seen again. */
  tombstone?: true;
}

/** A meta as read: from the notices (`tombstone` 0) or from the tombstones (1). */
type StoredMeta = Omit<NoticeMeta, 'tombstone'> & { tombstone: number };

/** What tells one notice from another to a person choosing between them. */
export type NoticeSummary = Pick<
  StoredNotice,
  'id' | 'pipeline_slug' | 'identifier' | 'subject' | 'posted_at'
>;

/** One past version of a notice. */
export interface NoticeVersion {
  version: number;
  changed_at: UtcIso;
  changed_fields: string[];
  previous: Notice;
}

/** Every field of a notice, in the order `noticeHash` reads them. */
export const NOTICE_FIELDS = [
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

/** How many of the latest notices `supersededBy` looks among. */
export const SUPERSEDED_WINDOW = 5_000;

const TEXTS: ReadonlySet<string> = new Set(TEXT_FIELDS);
/** The fields whose words `vocabulary` gives. */
export const WORD_FIELDS = ['type', 'category', 'status'] as const;
/** How many distinct words a store remembers having written (`noteWords`). */
const WORDS_REMEMBERED = 1_000;
/** The fields kept in columns of their own: all but the texts, which are in `body`. */
export const NOTICE_COLUMNS = NOTICE_FIELDS.filter((f) => !TEXTS.has(f));

/**
 * The hash that tells one version of a notice from another: every field the API sent,
 * each followed by U+0001, an absent one written U+0000. Stored notices keep the value
 * they were stored with (`notice-hash.test.ts` pins it). The fields are joined first and
 * hashed in one call (`crypto.hash`, Node 20.12): a call for each part, or a Hash object,
 * cost more than the hashing.
 */
export function noticeHash(notice: Notice): string {
  let text = '';
  for (const field of NOTICE_FIELDS) text += `${notice[field] ?? '\u0000'}\u0001`;
  return hash('sha256', text, 'hex').slice(0, 32);
}

/**
 * What each text form of a pruned notice reads: that the text was pruned, when, and
 * where the pipeline still shows it, so every place that shows a notice says so.
 */
export function prunedText(prunedAt: string, url: string): string {
  const where = url ? `; the pipeline shows it at ${url}` : '';
  return `[text pruned ${prunedAt.slice(0, 10)} by PIPEWATCH_RETENTION${where}]`;
}

/** Whether a text is what `prunedText` wrote in place of a pruned one: no text to compare. */
export function isPrunedText(text: string): boolean {
  return /^\[text pruned \d{4}-\d{2}-\d{2} by PIPEWATCH_RETENTION[;\]]/.test(text);
}

/** A row of `notices` as both databases give it (`SELECT *`). */
export interface NoticeRow extends Omit<StoredNotice, 'baseline' | 'text_pruned_at'> {
  baseline: number;
  body: Uint8Array | null;
  pruned_at: string | null;
}

type Row = NoticeRow;

function textsOf(row: Row) {
  if (row.body) return decodeBody(row.body);
  if (row.pruned_at) {
    const text = prunedText(row.pruned_at, row.url);
    return { notice: text, html: text, mobile: text };
  }
  // Written before texts moved into the body.
  return { notice: row.notice, html: row.html, mobile: row.mobile };
}

/** A stored notice as its row holds it, its texts decoded (or saying they were pruned). */
export function noticeOfRow(row: NoticeRow): StoredNotice {
  const { body: _body, pruned_at, baseline, ...rest } = row;
  return {
    ...rest,
    ...textsOf(row),
    baseline: baseline === 1,
    text_pruned_at: pruned_at,
  };
}

/** The fields of a notice the API sent, without the store's bookkeeping. */
export function pickNotice(row: Notice): Notice {
  return Object.fromEntries(NOTICE_FIELDS.map((f) => [f, row[f]])) as unknown as Notice;
}

/** A row of `notice_history`: one past version, as the change that replaced it records it. */
export type NoticeHistoryRow = {
  version: number;
  changed_at: string;
  changed_fields: string;
  previous: string;
  body: Uint8Array | null;
};

/** What a change replaced: the fields it changed, as they were (the texts are in `body`). */
const previousFields = StoredNoticeSchema.partial();
const changedFields = z.array(z.string());

/** Undoes one change: `later` as it was before the change `h` records. */
function undo(later: Notice, h: NoticeHistoryRow, id: number): Notice {
  const previous = parseStored(
    previousFields,
    h.previous,
    `version ${h.version} of notice ${id} in its history`,
  );
  const before = { ...later, ...previous };
  return h.body ? { ...before, ...decodeBody(h.body) } : before;
}

/** A meta as read: `tombstone` set (1, or true) when it is read from the tombstones. */
export function metaOfRow(
  row: Omit<NoticeMeta, 'tombstone'> & { tombstone: number | boolean },
): NoticeMeta {
  const { tombstone, ...meta } = row;
  return tombstone ? { ...meta, tombstone: true } : meta;
}

/**
 * What storing a notice that has no row answers: new when nothing was known of it; back
 * from a tombstone (`known`) at the version it had when unchanged, else at the next one,
 * what changed not known.
 */
export function reinsertion(known: NoticeMeta | null | undefined, hash: string): UpsertResult {
  if (!known) return fieldsUnknown('new', 1);
  return known.content_hash === hash
    ? fieldsUnknown('unchanged', known.version)
    : fieldsUnknown('updated', known.version + 1);
}

/**
 * A result that names no changed field and no previous version: a notice new, unchanged,
 * or back from a tombstone with what changed not known.
 */
export function fieldsUnknown(change: NoticeChange, version: number): UpsertResult {
  return { change, version, changedFields: [], previous: undefined };
}

/**
 * An update of the stored `previous` to `notice`: the fields that changed, and what the
 * history keeps of the version replaced (its changed fields, their previous values but
 * the texts, the texts as a body when they changed). The texts of a pruned notice
 * (`prunedAt`) are not known: they count as changed, and no earlier text is kept for the
 * version they belonged to.
 */
export function changeOf(
  previous: Notice,
  notice: Notice,
  prunedAt: string | null,
): {
  changedFields: (keyof Notice)[];
  history: { changed_fields: string; previous: string; body: Buffer | null };
} {
  const changedFields = NOTICE_FIELDS.filter(
    (f) => previous[f] !== notice[f] || (prunedAt !== null && TEXTS.has(f)),
  );
  const textChanged = !prunedAt && changedFields.some((f) => TEXTS.has(f));
  return {
    changedFields,
    history: {
      changed_fields: JSON.stringify(changedFields),
      previous: JSON.stringify(
        Object.fromEntries(changedFields.filter((f) => !TEXTS.has(f)).map((f) => [f, previous[f]])),
      ),
      body: textChanged ? encodeBody(previous) : null,
    },
  };
}

/**
 * The notice as it was at `version`, from its current row and its history from that
 * version on, the latest first: the current row with the later changes undone. When the
 * history of that version was pruned, its texts say so. Throws `StoredDataError` when the
 * history cannot be read back.
 */
export function noticeAtVersion(
  current: StoredNotice,
  version: number,
  changes: readonly NoticeHistoryRow[],
): Notice {
  if (current.version === version) return pickNotice(current);
  if (changes.length !== current.version - version || changes.at(-1)?.version !== version) {
    const text = prunedText(current.text_pruned_at ?? current.last_seen_at, current.url);
    return pickNotice({ ...current, notice: text, html: text, mobile: text });
  }
  return changes.reduce<Notice>((later, h) => undo(later, h, current.id), pickNotice(current));
}

/** The versions before the current one, oldest first, from its whole history, the latest first. */
export function versionsBefore(
  current: StoredNotice,
  rows: readonly NoticeHistoryRow[],
): NoticeVersion[] {
  const out: NoticeVersion[] = [];
  let later = pickNotice(current);
  for (const r of rows) {
    later = undo(later, r, current.id);
    out.push({
      version: r.version,
      changed_at: r.changed_at,
      changed_fields: parseStored(
        changedFields,
        r.changed_fields,
        `the changed fields of version ${r.version} of notice ${current.id}`,
      ),
      previous: later,
    });
  }
  return out.reverse();
}

/** Reads and writes the `notices` and `notice_history` tables. */
export class NoticeStore {
  private readonly selectMeta;
  private readonly selectMetas;
  private readonly selectFull;
  private readonly insert;
  private readonly update;
  private readonly touch;
  private readonly restore;
  private readonly insertHistory;
  private readonly insertWord;
  private readonly deleteTombstone;
  /**
   * The words this store has written to `notice_words`, by field (`type`: `Maintenance`,
   * …), so that each is written once, not once a notice: a few dozen in practice. Past
   * `WORDS_REMEMBERED` of them (an upstream inventing words) the rest are written every
   * time.
   */
  private readonly wordsWritten: Record<(typeof WORD_FIELDS)[number], Set<string>> = {
    type: new Set(),
    category: new Set(),
    status: new Set(),
  };
  private wordsRemembered = 0;

  /**
   * `inserted` hears of each notice whose row this store inserts, inside the same
   * transaction: the store's reminders give it to those that waited for it
   * (`ReminderStore.noticeStored`).
   */
  constructor(
    private readonly db: Db,
    private readonly inserted?: (notice: Notice) => void,
  ) {
    const columns = NOTICE_COLUMNS.join(', ');
    const params = NOTICE_COLUMNS.map((f) => `@${f}`).join(', ');
    // A tombstone's hash is read back as the hex `noticeHash` gives.
    const tombstone = `lower(hex(content_hash)) AS content_hash, version, NULL AS pruned_at, 1 AS tombstone
      FROM notice_tombstones`;
    this.selectMeta = db.prepare<[number, number], StoredMeta>(
      `SELECT content_hash, version, pruned_at, 0 AS tombstone FROM notices WHERE id = ?
       UNION ALL SELECT ${tombstone} WHERE id = ? ORDER BY tombstone LIMIT 1`,
    );
    // One pass over the ids, each looked up in the notices and, when not there, in the
    // tombstones: a UNION of the two tables read the ids twice, for some 6 µs a page more.
    this.selectMetas = db.prepare<[string], StoredMeta & { id: number }>(
      `SELECT ids.value AS id, coalesce(n.content_hash, lower(hex(t.content_hash))) AS content_hash,
         coalesce(n.version, t.version) AS version, n.pruned_at, n.id IS NULL AS tombstone
       FROM json_each(?) AS ids
         LEFT JOIN notices AS n ON n.id = ids.value
         LEFT JOIN notice_tombstones AS t ON n.id IS NULL AND t.id = ids.value
       WHERE n.id IS NOT NULL OR t.id IS NOT NULL`,
    );
    this.deleteTombstone = db.prepare<[number]>('DELETE FROM notice_tombstones WHERE id = ?');
    this.selectFull = db.prepare<[number], Row>('SELECT * FROM notices WHERE id = ?');
    this.insert = db.prepare(
      `INSERT INTO notices (${columns}, notice, html, mobile, body, content_hash, version, first_seen_at, last_seen_at, last_changed_at, baseline)
       VALUES (${params}, '', '', '', @body, @content_hash, @version, @seen_at, @seen_at, @seen_at, @baseline)`,
    );
    this.update = db.prepare(
      `UPDATE notices SET ${NOTICE_COLUMNS.filter((f) => f !== 'id')
        .map((f) => `${f} = @${f}`)
        .join(', ')}, notice = '', html = '', mobile = '', body = @body, pruned_at = NULL,
         content_hash = @content_hash, version = version + 1, last_seen_at = @seen_at, last_changed_at = @seen_at
       WHERE id = @id`,
    );
    this.touch = db.prepare('UPDATE notices SET last_seen_at = ? WHERE id = ?');
    this.restore = db.prepare(
      'UPDATE notices SET body = ?, pruned_at = NULL, last_seen_at = ? WHERE id = ?',
    );
    this.insertWord = db.prepare<[string, string]>(
      'INSERT OR IGNORE INTO notice_words (field, word) VALUES (?, lower(?))',
    );
    this.insertHistory = db.prepare(
      'INSERT INTO notice_history (notice_id, version, changed_at, changed_fields, previous, body) VALUES (?, ?, ?, ?, ?, ?)',
    );
  }

  /**
   * What is stored of each of these notices, by id (none for one not stored), read in one
   * query: a page's notices are looked up together, where one query each cost some 2 µs a
   * notice more. Pass each to `upsert`.
   */
  metaOf(ids: readonly number[]): Map<number, NoticeMeta> {
    const found = new Map<number, NoticeMeta>();
    for (const { id, ...meta } of this.selectMetas.all(JSON.stringify(ids)))
      found.set(id, metaOfRow(meta));
    return found;
  }

  /** The meta of one notice, its tombstone's when only that is left. */
  private metaOfOne(id: number): NoticeMeta | undefined {
    const row = this.selectMeta.get(id, id);
    return row && metaOfRow(row);
  }

  /**
   * Whether retention removed notice `id`, keeping only its tombstone: the answer to a
   * person naming a notice that is no longer stored.
   */
  wasPruned(id: number): boolean {
    return this.metaOfOne(id)?.tombstone === true;
  }

  /**
   * Stores a notice as the API sent it and classifies it. Call inside a transaction
   * together with whatever acts on the result. A pruned notice seen again unchanged gets
   * its text back, and is still not new. `stored` is what `metaOf` read of it before (null:
   * not stored); without it, the notice is looked up. It must still hold: a notice met
   * twice in one page is looked up again the second time.
   */
  upsert(
    notice: Notice,
    seenAt: UtcIso,
    baseline: boolean,
    stored?: NoticeMeta | null,
  ): UpsertResult {
    const hash = noticeHash(notice);
    const known = stored === undefined ? this.metaOfOne(notice.id) : stored;
    if (!known || known.tombstone) {
      const result = reinsertion(known, hash);
      if (known) this.deleteTombstone.run(notice.id);
      this.insert.run(
        Object.assign(noticeColumns(notice), {
          body: encodeBody(notice),
          content_hash: hash,
          version: result.version,
          seen_at: seenAt,
          baseline: baseline ? 1 : 0,
        }),
      );
      this.inserted?.(notice);
      this.noteWords(notice);
      return result;
    }
    if (known.content_hash === hash) {
      if (known.pruned_at) this.restore.run(encodeBody(notice), seenAt, notice.id);
      else this.touch.run(seenAt, notice.id);
      return fieldsUnknown('unchanged', known.version);
    }
    const previous = pickNotice(
      expectRow(this.get(notice.id), `notice ${notice.id}, read as known`),
    );
    const { changedFields, history } = changeOf(previous, notice, known.pruned_at);
    this.update.run(
      Object.assign(noticeColumns(notice), {
        body: encodeBody(notice),
        content_hash: hash,
        seen_at: seenAt,
      }),
    );
    this.noteWords(notice);
    this.insertHistory.run(
      notice.id,
      known.version,
      seenAt,
      history.changed_fields,
      history.previous,
      history.body,
    );
    return { change: 'updated', version: known.version + 1, changedFields, previous };
  }

  /** One stored notice. */
  get(id: number): StoredNotice | undefined {
    const row = this.selectFull.get(id);
    return row ? noticeOfRow(row) : undefined;
  }

  /**
   * The notice exactly as it was at `version`: the current row when that is its version,
   * else the current row with the later changes undone from the history. When the
   * history of that version was pruned, its texts say so (undefined: no such notice).
   * Throws `StoredDataError` when its history cannot be read back.
   */
  at(id: number, version: number): Notice | undefined {
    const current = this.get(id);
    if (!current) return undefined;
    if (current.version === version) return pickNotice(current);
    const changes = statement<[number, number], NoticeHistoryRow>(
      this.db,
      `SELECT version, changed_at, changed_fields, previous, body FROM notice_history
       WHERE notice_id = ? AND version >= ? ORDER BY version DESC`,
    ).all(id, version);
    return noticeAtVersion(current, version, changes);
  }

  /** The versions a notice had before its current one, oldest first, each whole. */
  history(id: number): NoticeVersion[] {
    const current = this.get(id);
    if (!current) return [];
    const rows = statement<[number], NoticeHistoryRow>(
      this.db,
      'SELECT version, changed_at, changed_fields, previous, body FROM notice_history WHERE notice_id = ? ORDER BY version DESC',
    ).all(id);
    return versionsBefore(current, rows);
  }

  /**
   * The stored notices whose pipeline's own identifier is `identifier` (`26-0524`, letter
   * case aside), of `pipeline` only when given, latest first, at most `limit`: one
   * identifier may name notices of several pipelines, and a pipeline may use one again.
   * Read by scanning the notices: an index by identifier would cost every stored notice a
   * write (dropped for that in migration 9), and this serves a person naming one notice
   * (some 0.1 s for 200,000 notices).
   */
  withIdentifier(identifier: string, pipeline?: string, limit = 50): NoticeSummary[] {
    return statement<{ identifier: string; pipeline: string | null; limit: number }, NoticeSummary>(
      this.db,
      `SELECT id, pipeline_slug, identifier, subject, posted_at FROM notices
       WHERE identifier = @identifier COLLATE NOCASE AND (@pipeline IS NULL OR pipeline_slug = @pipeline)
       ORDER BY posted_at DESC, id DESC LIMIT @limit`,
    ).all({ identifier, pipeline: pipeline ?? null, limit });
  }

  /**
   * The notice a notice of `pipeline` posted at `postedAt` replaces when it says it
   * supersedes `identifier`: the latest other notice of that pipeline and identifier
   * among the `window` notices posted last up to then, by its id. Looked for in a window,
   * not in every notice: it runs while a page of notices is stored and decided, and a
   * notice it names that is not stored would otherwise cost a scan of them all (no
   * index by identifier, see `withIdentifier`).
   */
  supersededBy(
    pipeline: string,
    identifier: string,
    exceptId: number,
    postedAt: string | null,
    window = SUPERSEDED_WINDOW,
  ): number | undefined {
    return statement<
      { pipeline: string; identifier: string; id: number; posted: string; window: number },
      { id: number }
    >(
      this.db,
      // The newest first, down to the posting time `window` notices back (read off the
      // index alone), so a match near the top ends the walk at once.
      `SELECT id FROM notices
       WHERE posted_at <= @posted
         AND posted_at >= coalesce((SELECT posted_at FROM notices WHERE posted_at <= @posted
           ORDER BY posted_at DESC LIMIT 1 OFFSET @window - 1), '')
         AND pipeline_slug = @pipeline AND identifier = @identifier COLLATE NOCASE AND id <> @id
       ORDER BY posted_at DESC, id DESC LIMIT 1`,
    ).get({ pipeline, identifier, id: exceptId, posted: postedAt ?? '9999', window })?.id;
  }

  /** Number of stored notices. */
  count(): number {
    return statement<[], { n: number }>(this.db, 'SELECT count(*) AS n FROM notices').get()?.n ?? 0;
  }

  /**
   * The words of a notice's type, category and status, for `vocabulary`: kept in a small
   * table of their own, not read off an index of every notice, which every stored notice
   * paid for in a leaf of its own.
   */
  private noteWords(notice: Notice): void {
    for (const field of WORD_FIELDS) {
      const value = notice[field];
      const written = this.wordsWritten[field];
      if (value === '' || written.has(value)) continue;
      this.insertWord.run(field, value);
      if (this.wordsRemembered < WORDS_REMEMBERED) {
        written.add(value);
        this.wordsRemembered++;
      }
    }
  }

  /**
   * Forgets which words were written: a transaction that wrote one failed, so it may not
   * be there. `Store.transaction` calls this when its function throws.
   */
  forgetWrittenWords(): void {
    for (const written of Object.values(this.wordsWritten)) written.clear();
    this.wordsRemembered = 0;
  }

  /**
   * What the newest notices say about when the API refreshes (`refresh-observations.ts`),
   * for the notice feed's schedule and the status report.
   */
  refreshObservations(since: UtcIso, scan = 500): RefreshObservation[] {
    return recentRefreshObservations(this.db, since, scan);
  }

  /**
   * The distinct pipeline, type, category and status of the notices seen at or after
   * `since`, and each pipeline of the capacity cycles seen then (with empty fields: a
   * capacity alert has no notice): what a new silence is checked against, so that one
   * that would match nothing is said to.
   */
  fieldsSeenSince(
    since: UtcIso,
  ): Array<{ pipeline: string; type: string; category: string; status: string }> {
    return statement<
      [string, string],
      { pipeline: string; type: string; category: string; status: string }
    >(
      this.db,
      `SELECT DISTINCT pipeline_slug AS pipeline, type, category, status FROM notices
         WHERE last_seen_at >= ?
       UNION
       SELECT DISTINCT pipeline_slug, '', '', '' FROM capacity_cycles WHERE last_seen_at >= ?`,
    ).all(since, since);
  }

  /** The distinct types, categories and statuses of the stored notices, in lower case. */
  vocabulary(): { types: string[]; categories: string[]; statuses: string[] } {
    const words = statement<[], { field: (typeof WORD_FIELDS)[number]; word: string }>(
      this.db,
      'SELECT field, word FROM notice_words ORDER BY field, word',
    ).all();
    const of = (field: (typeof WORD_FIELDS)[number]) =>
      words.filter((w) => w.field === field).map((w) => w.word);
    return { types: of('type'), categories: of('category'), statuses: of('status') };
  }

  /**
   * Notices of these pipelines posted at or after `since`, latest first: what a new
   * subscription would have matched in the last day. Read by `notices_posted`, every
   * pipeline's notices of the window passing by, so no index by pipeline is kept for a
   * day's worth of rows. Streamed row by row, so a long window costs no more memory than a
   * short one and nothing is left out; a caller that shows only some of them counts the
   * rest itself.
   */
  *postedSinceIn(since: UtcIso, pipelines: readonly string[]): Generator<StoredNotice> {
    const rows = statement<[string, string], Row>(
      this.db,
      `SELECT * FROM notices WHERE pipeline_slug IN (SELECT value FROM json_each(?)) AND posted_at >= ?
       ORDER BY posted_at DESC, id DESC`,
    ).iterate(JSON.stringify(pipelines), since);
    for (const row of rows) yield noticeOfRow(row);
  }

  /**
   * Hands `visit` each notice posted at or after `since` (of `pipelines`, when given),
   * latest first, one row at a time: the streaming read the asynchronous store offers,
   * since `visit` runs before the call returns and nothing else can use the connection
   * in between.
   */
  visitPostedSince(
    since: UtcIso,
    pipelines: readonly string[] | undefined,
    visit: (notice: StoredNotice) => void,
  ): void {
    for (const n of pipelines ? this.postedSinceIn(since, pipelines) : this.postedSince(since))
      visit(n);
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
    for (const row of rows) yield noticeOfRow(row);
  }

  /**
   * The notices whose `end_at` falls in `(after, until]`, for the incidents their end
   * closes. Notices are few enough that a scan, made only while a rule pages, costs
   * little.
   */
  endedBetween(after: UtcIso, until: UtcIso): StoredNotice[] {
    return statement<[string, string], Row>(
      this.db,
      'SELECT * FROM notices WHERE end_at > ? AND end_at <= ? ORDER BY end_at, id',
    )
      .all(after, until)
      .map(noticeOfRow);
  }

  /**
   * The ids of the notices `postedSince(since)` gives, in its order (latest first),
   * without their text: a caller that awaits between two reads them one by one.
   */
  idsPostedSince(since: UtcIso): number[] {
    return statement<[string], { id: number }>(
      this.db,
      'SELECT id FROM notices WHERE posted_at >= ? ORDER BY posted_at DESC, id DESC',
    )
      .all(since)
      .map((r) => r.id);
  }
}

/** A notice's fields kept in columns of their own (`NOTICE_COLUMNS`), by name. */
export function noticeColumns(notice: Notice): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const f of NOTICE_COLUMNS) row[f] = notice[f];
  return row;
}
