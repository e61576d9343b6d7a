/**
 * What each feed last did: when it was attempted, when it last succeeded, its last error
 * and how many times in a row it has failed, plus a feed-specific cursor. The scheduler
 * writes it; `status`, `/healthz` and `/status` read it.
 */

import type { z } from 'zod';
import type { UtcIso } from '../lib/time.js';
import { type Db, statement } from './database.js';
import { parseStored } from './stored-json.js';

/** The state of one feed. */
export interface FeedState {
  feed: string;
  last_attempt_at: UtcIso | null;
  last_success_at: UtcIso | null;
  last_error: string | null;
  last_error_code: string | null;
  last_error_at: UtcIso | null;
  consecutive_failures: number;
}

/** Reads and writes `sync_state`. */
export class SyncStateStore {
  constructor(private readonly db: Db) {}

  /** Records the start of an attempt. */
  attempted(feed: string, at: UtcIso): void {
    statement(
      this.db,
      `INSERT INTO sync_state (feed, last_attempt_at) VALUES (?, ?)
         ON CONFLICT (feed) DO UPDATE SET last_attempt_at = excluded.last_attempt_at`,
    ).run(feed, at);
  }

  /** Records a success; clears the failure streak but keeps the last error for reference. */
  succeeded(feed: string, at: UtcIso): void {
    statement(
      this.db,
      `INSERT INTO sync_state (feed, last_attempt_at, last_success_at) VALUES (?, ?, ?)
         ON CONFLICT (feed) DO UPDATE SET last_success_at = excluded.last_success_at, consecutive_failures = 0`,
    ).run(feed, at, at);
  }

  /** Records a failure. */
  failed(feed: string, at: UtcIso, error: { message: string; code?: string | undefined }): void {
    statement(
      this.db,
      `INSERT INTO sync_state (feed, last_attempt_at, last_error, last_error_code, last_error_at, consecutive_failures)
         VALUES (@feed, @at, @message, @code, @at, 1)
         ON CONFLICT (feed) DO UPDATE SET last_error = excluded.last_error, last_error_code = excluded.last_error_code,
           last_error_at = excluded.last_error_at, consecutive_failures = consecutive_failures + 1`,
    ).run({ feed, at, message: error.message, code: error.code ?? null });
  }

  /**
   * A feed's cursor (feed-specific JSON), if any, read through the feed's `schema`;
   * throws `StoredDataError` for one that cannot be read back (the feed fails, loudly).
   */
  cursor<S extends z.ZodType>(feed: string, schema: S): z.output<S> | undefined {
    const row = statement<[string], { cursor: string | null }>(
      this.db,
      'SELECT cursor FROM sync_state WHERE feed = ?',
    ).get(feed);
    return row?.cursor ? parseStored(schema, row.cursor, `the cursor of ${feed}`) : undefined;
  }

  /** Replaces a feed's cursor. */
  setCursor(feed: string, cursor: unknown): void {
    statement(
      this.db,
      `INSERT INTO sync_state (feed, cursor) VALUES (?, ?)
         ON CONFLICT (feed) DO UPDATE SET cursor = excluded.cursor`,
    ).run(feed, JSON.stringify(cursor));
  }

  /** The state of one feed. */
  get(feed: string): FeedState | undefined {
    return statement<[string], FeedState>(this.db, 'SELECT * FROM sync_state WHERE feed = ?').get(
      feed,
    );
  }

  /** Every feed's state, by name. */
  all(): FeedState[] {
    return statement<[], FeedState>(
      this.db,
      'SELECT feed, last_attempt_at, last_success_at, last_error, last_error_code, last_error_at, consecutive_failures FROM sync_state ORDER BY feed',
    ).all();
  }
}
