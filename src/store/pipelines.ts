/** The tracked pipelines, as `/ip/pipelines` last listed them. */

import type { UtcIso } from '../lib/time.js';
import type { Pipeline } from '../upstream/schemas.js';
import { type Db, statement } from './database.js';

/** A pipeline with pipewatch's bookkeeping. */
export interface StoredPipeline extends Pipeline {
  /** IANA zone the pipeline shows local times in, when known. */
  timezone: string | null;
  /** When the API last answered that it has no capacity data for this pipeline. */
  capacity_missing_at: UtcIso | null;
  first_seen_at: UtcIso;
  last_seen_at: UtcIso;
}

/** Zone to show a pipeline's local times in when it does not say (the catalog's default). */
export const DEFAULT_PIPELINE_ZONE = 'America/Chicago';

/** Reads and writes `pipelines`. */
export class PipelineStore {
  private readonly selectBySlug;

  constructor(private readonly db: Db) {
    this.selectBySlug = db.prepare<[string], StoredPipeline>(
      'SELECT * FROM pipelines WHERE slug = ?',
    );
  }

  /** Stores a pipeline; returns true when it was not known before. */
  upsert(p: Pipeline, seenAt: UtcIso): boolean {
    const known =
      statement(this.db, 'SELECT 1 FROM pipelines WHERE id = ?').get(p.id) !== undefined;
    statement(
      this.db,
      `INSERT INTO pipelines (id, slug, name, url, tsp_name, tsp_id, service_created_at, service_updated_at, first_seen_at, last_seen_at)
         VALUES (@id, @slug, @name, @url, @tsp_name, @tsp_id, @service_created_at, @service_updated_at, @seen, @seen)
         ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, name = excluded.name, url = excluded.url,
           tsp_name = excluded.tsp_name, tsp_id = excluded.tsp_id, service_created_at = excluded.service_created_at,
           service_updated_at = excluded.service_updated_at, last_seen_at = excluded.last_seen_at`,
    ).run({ ...p, seen: seenAt });
    return !known;
  }

  /** Every pipeline, by slug. */
  all(): StoredPipeline[] {
    return statement<[], StoredPipeline>(this.db, 'SELECT * FROM pipelines ORDER BY slug').all();
  }

  /** One pipeline by slug. */
  bySlug(slug: string): StoredPipeline | undefined {
    return this.selectBySlug.get(slug);
  }

  /** The zone to show a pipeline's local times in. */
  zoneOf(slug: string): string {
    const row = statement<[string], { timezone: string | null }>(
      this.db,
      'SELECT timezone FROM pipelines WHERE slug = ?',
    ).get(slug);
    return row?.timezone ?? DEFAULT_PIPELINE_ZONE;
  }

  /**
   * Records that the API has no capacity data for a pipeline (`at`), or that it has
   * again (`null`), so that a plan covering every tracked pipeline skips it for a while.
   */
  setCapacityMissing(slug: string, at: UtcIso | null): void {
    statement(this.db, 'UPDATE pipelines SET capacity_missing_at = ? WHERE slug = ?').run(at, slug);
  }

  count(): number {
    return (
      statement<[], { n: number }>(this.db, 'SELECT count(*) AS n FROM pipelines').get()?.n ?? 0
    );
  }
}
