/**
 * A simulator, a client and a store on a temporary database file: the upstream and the
 * ingest stage as they run in production, on loopback, with clocks the test moves.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  CapacityEvent,
  IngestHooks,
  NoticeEvent,
  SchemaDriftEvent,
} from '../../src/ingest/events.js';
import {
  type NoticeSyncOptions,
  noticeSyncDefaults,
  syncNotices,
} from '../../src/ingest/notice-sync.js';
import { silentLogger } from '../../src/lib/logger.js';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { AsyncStore } from '../../src/store/async-store.js';
import { Store } from '../../src/store/index.js';
import { type ClientOptions, PipelineApiClient } from '../../src/upstream/client.js';
import { InstantClock, ManualClock } from '../support/clock.js';

export const START = new Date('2026-11-20T15:00:00Z');
export const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;

export interface Harness {
  sim: Simulator;
  simClock: ManualClock;
  clock: InstantClock;
  client: PipelineApiClient;
  dataDir: string;
  store: Store;
  /** The asynchronous store on `store`'s connection, which ingest works with. */
  readonly async: AsyncStore;
  events: { notices: NoticeEvent[]; capacity: CapacityEvent[]; drift: SchemaDriftEvent[] };
  hooks: IngestHooks;
  /** Closes and reopens the store, as a restart does. */
  reopen(): void;
  close(): Promise<void>;
}

export async function harness(
  options: { seed?: number; live?: boolean; client?: Partial<ClientOptions> } = {},
): Promise<Harness> {
  const simClock = new ManualClock(START);
  const sim = await startSimulator({
    seed: options.seed ?? 21,
    startAt: START,
    clock: simClock,
    control: true,
    live: options.live ?? false,
  });
  const clock = new InstantClock(START);
  const client = new PipelineApiClient({
    baseUrl: sim.url,
    user: premium.username,
    key: premium.key,
    clock,
    random: () => 0.5,
    rateLimit: { minTimeMs: 0 },
    logger: silentLogger,
    ...options.client,
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-ingest-'));
  const events: Harness['events'] = { notices: [], capacity: [], drift: [] };
  const hooks: IngestHooks = {
    notices: async (e) => {
      events.notices.push(...e);
    },
    capacity: async (e) => {
      events.capacity.push(e);
    },
    schemaDrift: async (e) => {
      events.drift.push(e);
    },
  };
  const h: Harness = {
    sim,
    simClock,
    clock,
    client,
    dataDir,
    store: Store.open(dataDir),
    get async() {
      return asyncStoreOf(h.store);
    },
    events,
    hooks,
    reopen() {
      h.store.close();
      h.store = Store.open(dataDir);
    },
    async close() {
      h.store.close();
      await client.close();
      await sim.close();
    },
  };
  return h;
}

/** The notice sync's options in these tests: a day's alert age and a shallow baseline. */
export const testSyncOptions: NoticeSyncOptions = {
  ...noticeSyncDefaults,
  maxAlertAgeMs: 86_400_000,
  baselinePages: 5,
};

/** One notice sync over the harness's client and store, with its hooks collecting events. */
export function syncOnce(h: Harness, options: NoticeSyncOptions = testSyncOptions) {
  return syncNotices(
    { client: h.client, store: h.async, clock: h.clock, logger: silentLogger, hooks: h.hooks },
    options,
  );
}
