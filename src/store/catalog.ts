/** The catalog's hashes and table descriptions, to notice when the API's structure changes. */

import type { UtcIso } from '../lib/time.js';
import { type TableDescription, TableDescriptionSchema } from '../upstream/schemas.js';
import { type Db, statement } from './database.js';
import { parseStored } from './stored-json.js';

export interface CatalogEntry {
  name: string;
  hash: string;
  description: TableDescription | null;
  updated_at: UtcIso;
}

/** Reads and writes `catalog`. */
export class CatalogStore {
  constructor(private readonly db: Db) {}

  /** Stored hash per catalog endpoint name (`tables`, `notices`, `pipelines`). */
  hashes(): Record<string, string> {
    const rows = statement<[], { name: string; hash: string }>(
      this.db,
      'SELECT name, hash FROM catalog',
    ).all();
    return Object.fromEntries(rows.map((r) => [r.name, r.hash]));
  }

  /** Stores a hash and, when known, the description behind it. */
  put(name: string, hash: string, description: TableDescription | null, at: UtcIso): void {
    statement(
      this.db,
      `INSERT INTO catalog (name, hash, description, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET hash = excluded.hash,
           description = coalesce(excluded.description, catalog.description), updated_at = excluded.updated_at`,
    ).run(name, hash, description ? JSON.stringify(description) : null, at);
  }

  get(name: string): CatalogEntry | undefined {
    const row = statement<
      [string],
      Omit<CatalogEntry, 'description'> & { description: string | null }
    >(this.db, 'SELECT * FROM catalog WHERE name = ?').get(name);
    return row && catalogEntryOf(row);
  }
}

/** A catalog entry read back from its row, its description checked (`StoredDataError` when not). */
export function catalogEntryOf(
  row: Omit<CatalogEntry, 'description'> & { description: string | null },
): CatalogEntry {
  return {
    ...row,
    description: row.description
      ? parseStored(TableDescriptionSchema, row.description, `the description of ${row.name}`)
      : null,
  };
}
