import { toUtcIso } from '../lib/time.js';
import type { PipelineApiClient } from '../upstream/client.js';
import type { TableDescription } from '../upstream/schemas.js';
import type { IngestDeps, PipelinesEvent, SchemaDriftEvent } from './events.js';

export const PIPELINES_FEED = 'pipelines';
export const CATALOG_FEED = 'catalog';

export type ReferenceSyncDeps = IngestDeps;

/** Upserts `/ip/pipelines`; returns the slugs that were not known before. */
export async function syncPipelines(
  deps: ReferenceSyncDeps,
  signal?: AbortSignal,
): Promise<{ total: number; added: string[] }> {
  const { data } = await deps.client.pipelines(signal);
  const seenAt = toUtcIso(deps.clock.now());
  const firstSync = (await deps.store.pipelines.count()) === 0;
  const added = await deps.store.transaction(async () => {
    const added: string[] = [];
    for (const p of data) if (await deps.store.pipelines.upsert(p, seenAt)) added.push(p.slug);
    const event: PipelinesEvent = {
      kind: 'pipelines',
      slugs: data.map((p) => p.slug),
      added,
      seenAt,
    };
    if (deps.hooks?.pipelines) await deps.hooks.pipelines(event);
    return added;
  });
  if (!firstSync) {
    for (const slug of added)
      deps.logger.info(
        { feed: PIPELINES_FEED, pipeline: slug },
        `new pipeline tracked by the API: ${slug}`,
      );
  }
  deps.logger.info(
    { feed: PIPELINES_FEED, total: data.length, added: added.length },
    `pipelines: ${data.length} tracked`,
  );
  return { total: data.length, added };
}

const DESCRIBED: Record<
  string,
  (c: PipelineApiClient, signal?: AbortSignal) => Promise<TableDescription | null>
> = {
  notices: async (c, signal) => (await c.catalogTable('notices', signal)).data,
  pipelines: async (c, signal) => (await c.catalogTable('pipelines', signal)).data,
  tables: async () => null,
};

/**
 * Compares `/catalog/hashes` with the stored hashes. The first sync stores them; later a
 * difference emits a schema-drift event per changed table, in the transaction that
 * stores the new hash and description.
 */
export async function syncCatalog(
  deps: ReferenceSyncDeps,
  signal?: AbortSignal,
): Promise<{ drifted: string[] }> {
  const { data: hashes } = await deps.client.catalogHashes(signal);
  const stored = await deps.store.catalog.hashes();
  const changed = Object.entries(hashes).filter(([name, hash]) => stored[name] !== hash);
  const descriptions = new Map<string, TableDescription | null>();
  for (const [name] of changed) {
    const describe = DESCRIBED[name];
    descriptions.set(name, describe ? await describe(deps.client, signal) : null);
  }
  const seenAt = toUtcIso(deps.clock.now());
  const drifted: string[] = [];
  await deps.store.transaction(async () => {
    for (const [name, hash] of changed) {
      const description = descriptions.get(name) ?? null;
      await deps.store.catalog.put(name, hash, description, seenAt);
      const previousHash = stored[name];
      if (previousHash === undefined) continue;
      drifted.push(name);
      const event: SchemaDriftEvent = {
        kind: 'schema-drift',
        table: name,
        previousHash,
        hash,
        description,
        seenAt,
      };
      if (deps.hooks?.schemaDrift) await deps.hooks.schemaDrift(event);
    }
  });
  for (const name of drifted) {
    deps.logger.warn(
      { feed: CATALOG_FEED, table: name, previousHash: stored[name], hash: hashes[name] },
      `the API's catalog changed: ${name} (structure of the data may have changed)`,
    );
  }
  return { drifted };
}
