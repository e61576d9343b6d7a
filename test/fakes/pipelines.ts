/** The API's pipeline list as `run` stores it, for tests that need pipewatch to know some slugs. */
import type { UtcIso } from '../../src/lib/time.js';
import type { Store } from '../../src/store/index.js';

/** Stores one pipeline per slug (ids from 1, names the slugs), seen at `at`. */
export function storePipelines(store: Store, slugs: readonly string[], at: UtcIso): void {
  for (const [i, slug] of slugs.entries())
    store.pipelines.upsert(
      {
        id: i + 1,
        name: slug,
        slug,
        url: '',
        tsp_name: slug,
        tsp_id: String(i + 1),
        service_created_at: at,
        service_updated_at: at,
      },
      at,
    );
}

let cycleIds = 0;

/**
 * One `latest` cycle of `slug` holding a location per `[name, identifier]`, seen at
 * `at`, as `upsertCycle` takes it (the cycle, its locations): on either store.
 */
export function latestCycle(
  slug: string,
  locations: ReadonlyArray<readonly [string, string]>,
  at: UtcIso,
  id = 900_000 + ++cycleIds,
) {
  return [
    {
      id,
      pipeline_id: 1,
      pipeline_name: slug,
      pipeline_slug: slug,
      pipeline_url: '',
      identifier: 'latest',
      cycle: 'timely' as const,
      gas_day: at.slice(0, 10),
      service_created_at: at,
      service_updated_at: at,
    },
    locations.map(([location, identifier], i) => ({
      id: id * 100 + i,
      location,
      identifier,
      flow: 'D',
      qti: 'DPQ',
      zone: 'Z1',
      dc: 100_000,
      opc: 100_000,
      tsq: 40_000,
      oac: 60_000,
      it: 'Y',
      all: 'N',
      reason: '',
      service_created_at: at,
      service_updated_at: at,
    })),
  ] as const;
}

/**
 * Stores one `latest` cycle of `slug` holding a location per `[name, identifier]`, seen at
 * `at`, as the capacity feed stores one: the locations pipewatch then knows it to have.
 */
export function storeLocations(
  store: Store,
  slug: string,
  locations: ReadonlyArray<readonly [string, string]>,
  at: UtcIso,
): void {
  store.capacity.upsertCycle(...latestCycle(slug, locations, at), at);
}
