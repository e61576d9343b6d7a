/**
 * The API's latest capacity locations of some pipelines, for checking location entries
 * where no capacity of them is stored (or none matched): `rules validate`, `subs add` and
 * chat's `oac` in the daemon ask this way, never storing what they get, so that no
 * capacity escapes the feed that judges it.
 */
import type { KnownLocation } from '../rules/location-check.js';
import type { PipelineApiClient } from '../upstream/client.js';
import { NotFoundError } from '../upstream/errors.js';

/** What the API gave: the locations of each pipeline it answered for, and why the others failed. */
export interface LatestLocations {
  book: Map<string, KnownLocation[]>;
  failed: Map<string, string>;
}

/** One pipeline's locations in its `latest` cycle. */
export async function latestLocationsOf(
  client: PipelineApiClient,
  slug: string,
  signal?: AbortSignal,
): Promise<KnownLocation[]> {
  const { data } = await client.capacity(slug, { cycle: 'latest', ...(signal ? { signal } : {}) });
  return data.locations.map((l) => ({ location: l.location, identifier: l.identifier }));
}

/**
 * Each of `slugs`' locations in its `latest` cycle; a pipeline that fails is named with
 * why. One the API has no capacity data for (404) has no locations: a rule's location
 * there can never match, which is what a rule naming no pipeline must not wait on.
 */
export async function latestLocations(
  client: PipelineApiClient,
  slugs: Iterable<string>,
  signal?: AbortSignal,
): Promise<LatestLocations> {
  const out: LatestLocations = { book: new Map(), failed: new Map() };
  await Promise.all(
    [...new Set(slugs)].map(async (slug) => {
      try {
        out.book.set(slug, await latestLocationsOf(client, slug, signal));
      } catch (error) {
        if (error instanceof NotFoundError) out.book.set(slug, []);
        else out.failed.set(slug, error instanceof Error ? error.message : String(error));
      }
    }),
  );
  return out;
}
