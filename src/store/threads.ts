/**
 * Thread references in the database: what a channel remembers about the first message
 * it sent for a notice to a target (Slack's `ts`, Discord's message id), so that an
 * update is posted under it, after a restart too. The store keeps each reference as
 * the JSON object of strings the channel gave it.
 */
import { z } from 'zod';
import type { Db } from './database.js';
import { parseStored } from './stored-json.js';

/** A channel's reference to a first message: any JSON object of strings. */
export type StoredThreadRef = Record<string, string>;

const threadRefSchema = z.record(z.string(), z.string());

/** Reads and writes `threads`; its statements are prepared once, when the store opens. */
export class ThreadStore {
  private readonly select;
  private readonly upsert;

  constructor(
    db: Db,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {
    this.select = db.prepare<[string, string], { ref: string }>(
      'SELECT ref FROM threads WHERE target = ? AND subject = ?',
    );
    this.upsert = db.prepare(
      `INSERT INTO threads (target, subject, ref, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (target, subject) DO NOTHING`,
    );
  }

  /**
   * The reference kept for a subject at a target, if any; throws `StoredDataError` for
   * one that cannot be read back (delivery reads it as none, with a warning).
   */
  get(target: string, subject: string): StoredThreadRef | undefined {
    const row = this.select.get(target, subject);
    return row
      ? parseStored(threadRefSchema, row.ref, `the thread reference of ${subject} at ${target}`)
      : undefined;
  }

  /** Keeps the first reference: an update threads under the first message, always. */
  set(target: string, subject: string, ref: StoredThreadRef): void {
    this.upsert.run(target, subject, JSON.stringify(ref), this.now());
  }
}
