/**
 * What the feeds keep between polls, on PostgreSQL: each feed's state and cursor
 * (`../sync-state.ts`), the catalog's hashes (`../catalog.ts`) and the tracked pipelines
 * (`../pipelines.ts`), each with the methods of its SQLite counterpart answering a
 * promise of what that one returns.
 */
import type { z } from 'zod';
import type { UtcIso } from '../../lib/time.js';
import type { Pipeline, TableDescription } from '../../upstream/schemas.js';
import { type CatalogEntry, catalogEntryOf } from '../catalog.js';
import { DEFAULT_PIPELINE_ZONE, type StoredPipeline } from '../pipelines.js';
import { parseStored } from '../stored-json.js';
import type { FeedState } from '../sync-state.js';
import type { Connection } from './queryable.js';

/** Reads and writes `sync_state` (see `SyncStateStore`). */
export class PgSyncStateStore {
  constructor(private readonly db: Connection) {}

  /** Records the start of an attempt. */
  async attempted(feed: string, at: UtcIso): Promise<void> {
    await this.db().query(
      `INSERT INTO sync_state (feed, last_attempt_at) VALUES ($1, $2)
       ON CONFLICT (feed) DO UPDATE SET last_attempt_at = excluded.last_attempt_at`,
      [feed, at],
    );
  }

  /** Records a success; clears the failure streak but keeps the last error for reference. */
  async succeeded(feed: string, at: UtcIso): Promise<void> {
    await this.db().query(
      `INSERT INTO sync_state (feed, last_attempt_at, last_success_at) VALUES ($1, $2, $2)
       ON CONFLICT (feed) DO UPDATE SET last_success_at = excluded.last_success_at, consecutive_failures = 0`,
      [feed, at],
    );
  }

  /** Records a failure. */
  async failed(
    feed: string,
    at: UtcIso,
    error: { message: string; code?: string | undefined },
  ): Promise<void> {
    await this.db().query(
      `INSERT INTO sync_state (feed, last_attempt_at, last_error, last_error_code, last_error_at, consecutive_failures)
       VALUES ($1, $2, $3, $4, $2, 1)
       ON CONFLICT (feed) DO UPDATE SET last_error = excluded.last_error, last_error_code = excluded.last_error_code,
         last_error_at = excluded.last_error_at, consecutive_failures = sync_state.consecutive_failures + 1`,
      [feed, at, error.message, error.code ?? null],
    );
  }

  /**
   * A feed's cursor (feed-specific JSON), if any, read through the feed's `schema`;
   * throws `StoredDataError` for one that cannot be read back (the feed fails, loudly).
   */
  async cursor<S extends z.ZodType>(feed: string, schema: S): Promise<z.output<S> | undefined> {
    const { rows } = await this.db().query<{ cursor: string | null }>(
      'SELECT cursor FROM sync_state WHERE feed = $1',
      [feed],
    );
    const row = rows[0];
    return row?.cursor ? parseStored(schema, row.cursor, `the cursor of ${feed}`) : undefined;
  }

  /** Replaces a feed's cursor. */
  async setCursor(feed: string, cursor: unknown): Promise<void> {
    await this.db().query(
      `INSERT INTO sync_state (feed, cursor) VALUES ($1, $2)
       ON CONFLICT (feed) DO UPDATE SET cursor = excluded.cursor`,
      [feed, JSON.stringify(cursor)],
    );
  }

  /** The state of one feed (its cursor's text too, as SQLite's `SELECT *` gives it). */
  async get(feed: string): Promise<FeedState | undefined> {
    const { rows } = await this.db().query<FeedState>('SELECT * FROM sync_state WHERE feed = $1', [
      feed,
    ]);
    return rows[0];
  }

  /** Every feed's state, by name. */
  async all(): Promise<FeedState[]> {
    const { rows } = await this.db().query<FeedState>(
      'SELECT feed, last_attempt_at, last_success_at, last_error, last_error_code, last_error_at, consecutive_failures FROM sync_state ORDER BY feed',
    );
    return rows;
  }
}

/** Reads and writes `catalog` (see `CatalogStore`). */
export class PgCatalogStore {
  constructor(private readonly db: Connection) {}

  /** Stored hash per catalog endpoint name (`tables`, `notices`, `pipelines`). */
  async hashes(): Promise<Record<string, string>> {
    const { rows } = await this.db().query<{ name: string; hash: string }>(
      'SELECT name, hash FROM catalog ORDER BY name',
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.hash]));
  }

  /** Stores a hash and, when known, the description behind it. */
  async put(
    name: string,
    hash: string,
    description: TableDescription | null,
    at: UtcIso,
  ): Promise<void> {
    await this.db().query(
      `INSERT INTO catalog (name, hash, description, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (name) DO UPDATE SET hash = excluded.hash,
         description = coalesce(excluded.description, catalog.description), updated_at = excluded.updated_at`,
      [name, hash, description ? JSON.stringify(description) : null, at],
    );
  }

  async get(name: string): Promise<CatalogEntry | undefined> {
    const { rows } = await this.db().query<
      Omit<CatalogEntry, 'description'> & { description: string | null }
    >('SELECT * FROM catalog WHERE name = $1', [name]);
    return rows[0] && catalogEntryOf(rows[0]);
  }
}

/** Reads and writes `pipelines` (see `PipelineStore`). */
export class PgPipelineStore {
  constructor(private readonly db: Connection) {}

  /**
   * Stores a pipeline; returns true when it was not known before. One statement, which
   * says itself whether it inserted (`xmax` is 0 on a row just inserted), so two replicas
   * storing the same new pipeline cannot both call it new.
   */
  async upsert(p: Pipeline, seenAt: UtcIso): Promise<boolean> {
    const { rows } = await this.db().query<{ inserted: boolean }>(
      `INSERT INTO pipelines (id, slug, name, url, tsp_name, tsp_id, service_created_at, service_updated_at, first_seen_at, last_seen_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
       ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, name = excluded.name, url = excluded.url,
         tsp_name = excluded.tsp_name, tsp_id = excluded.tsp_id, service_created_at = excluded.service_created_at,
         service_updated_at = excluded.service_updated_at, last_seen_at = excluded.last_seen_at
       RETURNING (xmax = 0) AS inserted`,
      [
        p.id,
        p.slug,
        p.name,
        p.url,
        p.tsp_name,
        p.tsp_id,
        p.service_created_at,
        p.service_updated_at,
        seenAt,
      ],
    );
    return rows[0]?.inserted === true;
  }

  /** Every pipeline, by slug. */
  async all(): Promise<StoredPipeline[]> {
    const { rows } = await this.db().query<StoredPipeline>('SELECT * FROM pipelines ORDER BY slug');
    return rows;
  }

  /** One pipeline by slug. */
  async bySlug(slug: string): Promise<StoredPipeline | undefined> {
    const { rows } = await this.db().query<StoredPipeline>(
      'SELECT * FROM pipelines WHERE slug = $1',
      [slug],
    );
    return rows[0];
  }

  /** The zone to show a pipeline's local times in. */
  async zoneOf(slug: string): Promise<string> {
    const { rows } = await this.db().query<{ timezone: string | null }>(
      'SELECT timezone FROM pipelines WHERE slug = $1',
      [slug],
    );
    return rows[0]?.timezone ?? DEFAULT_PIPELINE_ZONE;
  }

  /**
   * Records that the API has no capacity data for a pipeline (`at`), or that it has
   * again (`null`), so that a plan covering every tracked pipeline skips it for a while.
   */
  async setCapacityMissing(slug: string, at: UtcIso | null): Promise<void> {
    await this.db().query('UPDATE pipelines SET capacity_missing_at = $1 WHERE slug = $2', [
      at,
      slug,
    ]);
  }

  async count(): Promise<number> {
    const { rows } = await this.db().query<{ n: number }>('SELECT count(*) AS n FROM pipelines');
    return rows[0]?.n ?? 0;
  }
}
