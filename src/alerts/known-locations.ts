/**
 * The locations pipewatch knows each pipeline to have: those of the capacity it stored in
 * the last 7 days. What `rules validate`, `subs add`, chat and the daemon check a rule's
 * location entries against (the first three add the API's latest capacity when they can
 * ask for it).
 */
import { toUtcIso } from '../lib/time.js';
import type { KnownLocation, LocationBook } from '../rules/location-check.js';
import type { AsyncStore } from '../store/async-store.js';

/** How far back stored capacity counts: a location not seen for longer may be gone. */
export const LOCATIONS_SEEN_WITHIN_MS = 7 * 86_400_000;

/** The locations of `slugs` stored in the 7 days before `now`; a slug with none is left out. */
export async function storedLocations(
  store: AsyncStore,
  slugs: Iterable<string>,
  now: Date,
): Promise<Map<string, KnownLocation[]>> {
  const since = toUtcIso(new Date(now.getTime() - LOCATIONS_SEEN_WITHIN_MS));
  const book = new Map<string, KnownLocation[]>();
  for (const slug of new Set(slugs)) {
    const locations = await store.capacity.locationsSeenSince(slug, since);
    if (locations.length > 0) book.set(slug, locations);
  }
  return book;
}

/** The locations of one `slug` stored in the 7 days before `now`; none: undefined. */
export async function storedLocationsAsync(
  store: AsyncStore,
  slug: string,
  now: Date,
): Promise<KnownLocation[] | undefined> {
  const since = toUtcIso(new Date(now.getTime() - LOCATIONS_SEEN_WITHIN_MS));
  const locations = await store.capacity.locationsSeenSince(slug, since);
  return locations.length > 0 ? locations : undefined;
}

/**
 * The tracked pipelines a rule naming none can have locations at: all but those the API
 * said it has no capacity data for.
 */
export async function pipelinesWithCapacity(store: AsyncStore): Promise<string[]> {
  return (await store.pipelines.all())
    .filter((p) => p.capacity_missing_at === null)
    .map((p) => p.slug);
}

/** Both books in one: a pipeline in either is known, its locations those of both. */
export function mergeBooks(a: LocationBook, b: LocationBook): Map<string, KnownLocation[]> {
  const out = new Map<string, KnownLocation[]>();
  for (const book of [a, b])
    for (const [slug, locations] of book) out.set(slug, [...(out.get(slug) ?? []), ...locations]);
  return out;
}
