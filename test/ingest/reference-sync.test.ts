import { afterEach, describe, expect, it } from 'vitest';
import { syncCatalog, syncPipelines } from '../../src/ingest/reference-sync.js';
import { silentLogger } from '../../src/lib/logger.js';
import { type Harness, harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const deps = () => ({
  client: h.client,
  store: h.async,
  clock: h.clock,
  logger: silentLogger,
  hooks: h.hooks,
});

describe('pipelines and catalog', () => {
  it('stores the pipelines and reports none as new on the next sync', async () => {
    h = await harness();
    const first = await syncPipelines(deps());
    expect(first.total).toBeGreaterThanOrEqual(20);
    expect(h.store.pipelines.bySlug('transco')?.tsp_id).toBe('007933021');
    expect(h.store.pipelines.zoneOf('transco')).toBe('America/Chicago');
    expect((await syncPipelines(deps())).added).toEqual([]);
  });

  it('stores the catalog hashes first, then reports drift once when a table changes', async () => {
    h = await harness();
    expect((await syncCatalog(deps())).drifted).toEqual([]);
    expect(h.events.drift).toEqual([]);
    expect((await syncCatalog(deps())).drifted).toEqual([]);
    h.sim.control.changeCatalog('notices', {
      name: 'PRIOR_ID',
      type: 'NUMBER(38,0)',
      description: 'Prior notice id.',
    });
    const drift = await syncCatalog(deps());
    expect(drift.drifted.sort()).toEqual(['notices', 'tables']);
    expect(
      h.events.drift.find((e) => e.table === 'notices')?.description?.fields.map((f) => f.name),
    ).toContain('PRIOR_ID');
    expect(h.store.catalog.get('notices')?.description?.fields.map((f) => f.name)).toContain(
      'PRIOR_ID',
    );
    expect((await syncCatalog(deps())).drifted).toEqual([]);
    expect(h.events.drift).toHaveLength(2);
  });
});
