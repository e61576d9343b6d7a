/**
 * Keys this instance makes for itself, by name: made once, on first use, and kept, so
 * that what was signed with one (an unsubscribe link in an email) stays valid across
 * restarts. Two processes asking at once get the same key: the first write wins.
 */
import type { UtcIso } from '../lib/time.js';
import { type Db, expectRow, statement } from './database.js';

/** Reads and writes `keys`. */
export class KeyStore {
  constructor(private readonly db: Db) {}

  /** The key named `name`, made by `make` and stored when there is none yet. */
  getOrCreate(name: string, make: () => string, at: UtcIso): string {
    const read = () =>
      statement<[string], { value: string }>(this.db, 'SELECT value FROM keys WHERE name = ?').get(
        name,
      )?.value;
    const known = read();
    if (known !== undefined) return known;
    statement(
      this.db,
      'INSERT INTO keys (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
    ).run(name, make(), at);
    return expectRow(read(), `key ${name}`);
  }
}
