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
