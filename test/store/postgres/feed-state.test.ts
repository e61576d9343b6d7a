/**
 * What the feeds keep between polls behaves the same on SQLite and on PostgreSQL: each
 * feed's attempts, successes, failure streak and cursor; the catalog's hashes and the
 * descriptions behind them; the tracked pipelines, new once, and their zones.
 */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  PgCatalogStore,
  PgPipelineStore,
  PgSyncStateStore,
} from '../../../src/store/postgres/feed-state.js';
import { on } from '../../../src/store/postgres/queryable.js';
import { StoredDataError } from '../../../src/store/stored-json.js';
import type { Pipeline, TableDescription } from '../../../src/upstream/schemas.js';
import { type Opened, STORES, sql } from '../../support/both-stores.js';

const NOW = '2026-11-20T15:00:00Z';
const LATER = '2026-11-20T15:05:00Z';

function stores(o: Opened) {
  if (o.kind === 'sqlite')
    return { sync: o.store.syncState, catalog: o.store.catalog, pipelines: o.store.pipelines };
  const db = on(o.pool);
  return {
    sync: new PgSyncStateStore(db),
    catalog: new PgCatalogStore(db),
    pipelines: new PgPipelineStore(db),
  };
}

const cursorSchema = z.object({ after: z.string(), page: z.number() });

const transco: Pipeline = {
  id: 7,
  name: 'Transco',
  slug: 'transco',
  url: 'https://example.test/transco',
  tsp_name: 'Transcontinental Gas Pipe Line',
  tsp_id: '006924518',
  service_created_at: '2020-01-01T00:00:00Z',
  service_updated_at: '2026-11-01T00:00:00Z',
};

describe.each(STORES)('%s (postgres and sqlite alike)', (_, open) => {
  it('keeps each feed’s attempts, successes and failure streak', async () => {
    const { sync } = stores(await open());
    expect(await sync.get('notices')).toBeUndefined();
    await sync.attempted('notices', NOW);
    await sync.failed('notices', NOW, { message: 'HTTP 503', code: 'UPSTREAM' });
    await sync.failed('notices', LATER, { message: 'timed out' });
    expect(await sync.get('notices')).toEqual({
      feed: 'notices',
      last_attempt_at: NOW,
      last_success_at: null,
      last_error: 'timed out',
      last_error_code: null,
      last_error_at: LATER,
      consecutive_failures: 2,
      cursor: null,
    });
    await sync.succeeded('notices', '2026-11-20T15:10:00Z');
    expect(await sync.get('notices')).toMatchObject({
      last_success_at: '2026-11-20T15:10:00Z',
      last_error: 'timed out',
      consecutive_failures: 0,
    });
    // First heard of by its failure, or by its success.
    await sync.failed('capacity', NOW, { message: 'refused', code: 'NETWORK' });
    await sync.succeeded('catalog', NOW);
    expect(await sync.all()).toEqual([
      {
        feed: 'capacity',
        last_attempt_at: NOW,
        last_success_at: null,
        last_error: 'refused',
        last_error_code: 'NETWORK',
        last_error_at: NOW,
        consecutive_failures: 1,
      },
      {
        feed: 'catalog',
        last_attempt_at: NOW,
        last_success_at: NOW,
        last_error: null,
        last_error_code: null,
        last_error_at: null,
        consecutive_failures: 0,
      },
      {
        feed: 'notices',
        last_attempt_at: NOW,
        last_success_at: '2026-11-20T15:10:00Z',
        last_error: 'timed out',
        last_error_code: null,
        last_error_at: LATER,
        consecutive_failures: 0,
      },
    ]);
  });

  it('keeps a feed’s cursor, read through its schema, and refuses one damaged', async () => {
    const o = await open();
    const { sync } = stores(o);
    expect(await sync.cursor('notices', cursorSchema)).toBeUndefined();
    await sync.attempted('notices', NOW);
    expect(await sync.cursor('notices', cursorSchema)).toBeUndefined();
    await sync.setCursor('notices', { after: NOW, page: 2 });
    await sync.setCursor('capacity', { after: LATER, page: 1 });
    expect(await sync.cursor('notices', cursorSchema)).toEqual({ after: NOW, page: 2 });
    expect(await sync.get('capacity')).toMatchObject({ last_attempt_at: null });
    await sync.setCursor('notices', { after: LATER, page: 3 });
    expect(await sync.cursor('notices', cursorSchema)).toEqual({ after: LATER, page: 3 });
    await sync.setCursor('notices', { after: 5 });
    await expect(async () => sync.cursor('notices', cursorSchema)).rejects.toThrow(
      'the database holds the cursor of notices, which is not what pipewatch stores there',
    );
    await sql(o, "UPDATE sync_state SET cursor = '{\"after\"' WHERE feed = 'notices'");
    await expect(async () => sync.cursor('notices', cursorSchema)).rejects.toThrow(StoredDataError);
  });

  it('keeps the catalog’s hashes, and the last description known of each', async () => {
    const o = await open();
    const { catalog } = stores(o);
    expect(await catalog.hashes()).toEqual({});
    const description: TableDescription = {
      name: 'notices',
      description: 'Critical notices',
      fields: [{ name: 'id', description: 'Notice id', type: 'integer' }],
      primary_key: 'id',
    };
    await catalog.put('notices', 'a'.repeat(64), description, NOW);
    await catalog.put('tables', 'b'.repeat(64), null, NOW);
    expect(await catalog.get('notices')).toEqual({
      name: 'notices',
      hash: 'a'.repeat(64),
      description,
      updated_at: NOW,
    });
    // A new hash without a description keeps the one known.
    await catalog.put('notices', 'c'.repeat(64), null, LATER);
    expect(await catalog.get('notices')).toEqual({
      name: 'notices',
      hash: 'c'.repeat(64),
      description,
      updated_at: LATER,
    });
    expect(await catalog.get('tables')).toMatchObject({ description: null });
    expect(await catalog.get('pipelines')).toBeUndefined();
    expect(await catalog.hashes()).toEqual({ notices: 'c'.repeat(64), tables: 'b'.repeat(64) });
    await sql(o, "UPDATE catalog SET description = '{\"name\":1}' WHERE name = 'notices'");
    await expect(async () => catalog.get('notices')).rejects.toThrow(
      'the database holds the description of notices',
    );
  });

  it('tracks pipelines: new once, updated after, first seen kept', async () => {
    const { pipelines } = stores(await open());
    expect(await pipelines.count()).toBe(0);
    expect(await pipelines.upsert(transco, NOW)).toBe(true);
    expect(await pipelines.upsert({ ...transco, name: 'Transco (Williams)' }, LATER)).toBe(false);
    const tetco = { ...transco, id: 3, slug: 'tetco', name: 'Texas Eastern' };
    expect(await pipelines.upsert(tetco, NOW)).toBe(true);
    expect(await pipelines.count()).toBe(2);
    expect(await pipelines.bySlug('transco')).toEqual({
      ...transco,
      name: 'Transco (Williams)',
      timezone: null,
      capacity_missing_at: null,
      first_seen_at: NOW,
      last_seen_at: LATER,
    });
    expect(await pipelines.bySlug('nowhere')).toBeUndefined();
    expect((await pipelines.all()).map((p) => p.slug)).toEqual(['tetco', 'transco']);
  });

  it('gives a pipeline’s zone, the default while it has none, and when capacity went missing', async () => {
    const o = await open();
    const { pipelines } = stores(o);
    await pipelines.upsert(transco, NOW);
    expect(await pipelines.zoneOf('transco')).toBe('America/Chicago');
    expect(await pipelines.zoneOf('nowhere')).toBe('America/Chicago');
    await sql(o, "UPDATE pipelines SET timezone = 'America/New_York' WHERE slug = 'transco'");
    expect(await pipelines.zoneOf('transco')).toBe('America/New_York');
    await pipelines.setCapacityMissing('transco', NOW);
    expect(await pipelines.bySlug('transco')).toMatchObject({ capacity_missing_at: NOW });
    await pipelines.setCapacityMissing('transco', null);
    expect(await pipelines.bySlug('transco')).toMatchObject({ capacity_missing_at: null });
    await pipelines.setCapacityMissing('nowhere', NOW);
    expect(await pipelines.count()).toBe(1);
  });
});
