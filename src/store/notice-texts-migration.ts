/**
 * Migration 8's rewrite of existing rows: each notice's three texts into one compressed
 * body, and each history row down to the previous values of the fields that changed.
 * Rows are read and written a thousand at a time, so a large database never sits in
 * memory at once; everything lands in the migration's one transaction.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { z } from 'zod';
import { encodeBody, TEXT_FIELDS } from './notice-body.js';
import { parseStored } from './stored-json.js';

const BATCH = 1000;
const TEXTS: ReadonlySet<string> = new Set(TEXT_FIELDS);

type Db = BetterSqlite3.Database;

const changedFields = z.array(z.string());
/** The previous values of a change: any JSON values, the texts among them strings. */
const previousFields = z.record(z.string(), z.unknown());

/** A text as the history kept it; absent or null as empty. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Moves the texts of every notice and history row into bodies. */
export function convertNoticeTexts(db: Db): void {
  const notices = db.prepare<
    [number, number],
    { id: number; notice: string; html: string; mobile: string }
  >(
    'SELECT id, notice, html, mobile FROM notices WHERE id > ? AND body IS NULL ORDER BY id LIMIT ?',
  );
  const setBody = db.prepare(
    "UPDATE notices SET body = ?, notice = '', html = '', mobile = '' WHERE id = ?",
  );
  for (let after = -1; ; ) {
    const rows = notices.all(after, BATCH);
    if (rows.length === 0) break;
    for (const r of rows) {
      setBody.run(encodeBody(r), r.id);
      after = r.id;
    }
  }

  const history = db.prepare<
    [number, number],
    { rowid: number; changed_fields: string; previous: string }
  >(
    'SELECT rowid, changed_fields, previous FROM notice_history WHERE rowid > ? AND body IS NULL ORDER BY rowid LIMIT ?',
  );
  const setHistory = db.prepare('UPDATE notice_history SET previous = ?, body = ? WHERE rowid = ?');
  for (let after = -1; ; ) {
    const rows = history.all(after, BATCH);
    if (rows.length === 0) break;
    for (const r of rows) {
      const where = `notice history row ${r.rowid}`;
      const changed = parseStored(
        changedFields,
        r.changed_fields,
        `the changed fields of ${where}`,
      );
      const previous = parseStored(previousFields, r.previous, `the previous values of ${where}`);
      const kept = Object.fromEntries(
        changed.filter((f) => !TEXTS.has(f)).map((f) => [f, previous[f]]),
      );
      const body = changed.some((f) => TEXTS.has(f))
        ? encodeBody({
            notice: text(previous.notice),
            html: text(previous.html),
            mobile: text(previous.mobile),
          })
        : null;
      setHistory.run(JSON.stringify(kept), body, r.rowid);
      after = r.rowid;
    }
  }
}
