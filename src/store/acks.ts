/**
 * Acknowledgements of alert messages: who acknowledged a message first, and when. Kept in
 * the database so a button on a message sent before a restart still knows.
 */
import type { UtcIso } from '../lib/time.js';
import { type Db, expectRow, statement } from './database.js';

export interface AckRow {
  by: string;
  at: UtcIso;
}

/** Reads and writes `acks`. */
export class AckStore {
  constructor(private readonly db: Db) {}

  /**
   * Records that `by` acknowledged a message, unless someone did first. Returns the
   * acknowledgement in force and whether it was there already.
   */
  acknowledge(
    platform: string,
    channel: string,
    message: string,
    by: string,
    at: UtcIso,
  ): AckRow & { already: boolean } {
    const inserted = statement(
      this.db,
      `INSERT INTO acks (platform, channel, message, by, at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (platform, channel, message) DO NOTHING`,
    ).run(platform, channel, message, by, at).changes;
    if (inserted > 0) return { by, at, already: false };
    const row = statement<[string, string, string], AckRow>(
      this.db,
      'SELECT by, at FROM acks WHERE platform = ? AND channel = ? AND message = ?',
    ).get(platform, channel, message);
    return {
      ...expectRow(row, `acknowledgement of ${platform} message ${message}`),
      already: true,
    };
  }

  /** Who acknowledged a message, and when; undefined while nobody has. */
  of(platform: string, channel: string, message: string): AckRow | undefined {
    return statement<[string, string, string], AckRow>(
      this.db,
      'SELECT by, at FROM acks WHERE platform = ? AND channel = ? AND message = ?',
    ).get(platform, channel, message);
  }
}
