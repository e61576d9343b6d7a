import { afterEach, describe, expect, it } from 'vitest';
import { cyclePostedAt } from '../../src/domain/gas-day.js';
import { Metrics } from '../../src/http/metrics.js';
import { capacityPlan } from '../../src/ingest/capacity-plan.js';
import {
  CapacitySyncError,
  type CapacitySyncOptions,
  type CapacitySyncResult,
  dueCycles,
  syncCapacity,
} from '../../src/ingest/capacity-sync.js';
import type { CapacityEvent, IngestHooks } from '../../src/ingest/events.js';
import { syncPipelines } from '../../src/ingest/reference-sync.js';
import { silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import { parseRuleFile } from '../../src/rules/loader.js';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import { type ClientOptions, PipelineApiClient } from '../../src/upstream/client.js';
import { AuthenticationError } from '../../src/upstream/errors.js';
import { InstantClock, ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** 18:00 CST on 2026-11-20: ID1 of that gas day, timely of the next and ID2 are posted. */
const EVENING = '2026-11-21T00:00:00Z';

const temp = useTempStore('pipewatch-capacity-sync-');
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  sim: Simulator;
  /** The simulator's time source. */
  simClock: ManualClock;
  /** pipewatch's time; ahead of the simulator by `lagMs` when the pipeline posts late. */
  clock: ManualClock;
  client: PipelineApiClient;
  store: Store;
  metrics: Metrics;
  /** Events the hooks accepted, in order. */
  events: CapacityEvent[];
  hooks: IngestHooks;
  sync(options?: Partial<CapacitySyncOptions>, signal?: AbortSignal): Promise<CapacitySyncResult>;
  /** Moves both clocks forward. */
  advance(ms: number): void;
}

async function setup(
  options: {
    start?: string;
    live?: boolean;
    lagMs?: number;
    pipelines?: string[];
    client?: Partial<ClientOptions>;
  } = {},
): Promise<Setup> {
  const start = new Date(options.start ?? EVENING);
  const simClock = new ManualClock(start);
  const sim = await startSimulator({
    seed: 21,
    startAt: start,
    clock: simClock,
    live: options.live ?? false,
    historyDays: 1,
    noticesPerHour: 0,
  });
  cleanups.push(() => sim.close());
  const client = new PipelineApiClient({
    baseUrl: sim.url,
    user: premium.username,
    key: premium.key,
    clock: new InstantClock(start),
    random: () => 0.5,
    rateLimit: { minTimeMs: 0 },
    logger: silentLogger,
    ...options.client,
  });
  cleanups.push(() => client.close());
  const { store } = temp;
  const clock = new ManualClock(start.getTime() + (options.lagMs ?? 0));
  const metrics = new Metrics({ processMetrics: false });
  const events: CapacityEvent[] = [];
  const hooks: IngestHooks = {
    capacity: async (e) => {
      events.push(e);
    },
  };
  const s: Setup = {
    sim,
    simClock,
    clock,
    client,
    store,
    metrics,
    events,
    hooks,
    sync: (extra = {}, signal) =>
      syncCapacity(
        {
          client,
          store: asyncStoreOf(store),
          clock,
          logger: silentLogger,
          hooks: s.hooks,
          metrics,
        },
        { pipelines: options.pipelines ?? ['transco'], ...extra },
        signal,
      ),
    advance(ms) {
      simClock.advance(ms);
      clock.advance(ms);
    },
  };
  return s;
}

function rulesOf(text: string) {
  const parsed = parseRuleFile(text, 'r.yaml');
  expect(parsed.problems).toEqual([]);
  return parsed.rules;
}

const named = (e: CapacityEvent) => `${e.cycle.pipeline_slug} ${e.cycle.gas_day} ${e.cycle.cycle}`;

async function counter(metric: Metrics['capacityCycles'] | Metrics['skippedRecords']) {
  const { values } = await metric.get();
  return Object.fromEntries(values.map((v) => [Object.values(v.labels).join(','), v.value]));
}

describe('dueCycles', async () => {
  const due = async (store: Store, at: string, options: Partial<CapacitySyncOptions> = {}) =>
    (await dueCycles(asyncStoreOf(store), 'texas-eastern', new Date(at), options)).map(
      (d) => `${d.gasDay} ${d.cycle}`,
    );

  it('follows Central time across the end of daylight saving (2026-11-01)', async () => {
    const { store } = temp;
    expect(cyclePostedAt('2026-11-01', 'timely').toISOString()).toBe('2026-10-31T22:00:00.000Z');
    expect(cyclePostedAt('2026-11-02', 'timely').toISOString()).toBe('2026-11-01T23:00:00.000Z');
    // 17:09:59 CDT: timely for 2026-11-01 (17:00 CDT) is within its grace; ID1 (13:00 CDT) is due.
    expect(await due(store, '2026-10-31T22:09:59.999Z')).toEqual(['2026-10-31 id1']);
    expect(await due(store, '2026-10-31T22:10:00Z')).toEqual([
      '2026-10-31 id1',
      '2026-11-01 timely',
    ]);
    // 01:30 CDT, half an hour before the clocks go back: evening (21:00 CDT), then ID3 (22:00 CDT).
    expect(await due(store, '2026-11-01T06:30:00Z')).toEqual([
      '2026-11-01 evening',
      '2026-10-31 id3',
    ]);
    // 16:10 CST: under daylight saving this would be past timely for 2026-11-02; it is not.
    expect(await due(store, '2026-11-01T22:10:00Z')).toEqual(['2026-11-01 id1']);
    expect(await due(store, '2026-11-01T23:10:00Z')).toEqual([
      '2026-11-01 id1',
      '2026-11-02 timely',
    ]);
  });

  it('follows Central time across the start of daylight saving (2026-03-08)', async () => {
    const { store } = temp;
    expect(cyclePostedAt('2026-03-08', 'timely').toISOString()).toBe('2026-03-07T23:00:00.000Z');
    expect(cyclePostedAt('2026-03-09', 'timely').toISOString()).toBe('2026-03-08T22:00:00.000Z');
    expect(await due(store, '2026-03-07T22:10:00Z')).toEqual(['2026-03-07 id1']);
    expect(await due(store, '2026-03-07T23:10:00Z')).toEqual([
      '2026-03-07 id1',
      '2026-03-08 timely',
    ]);
    // 03:30 CDT, just after the clocks went forward.
    expect(await due(store, '2026-03-08T08:30:00Z')).toEqual([
      '2026-03-08 evening',
      '2026-03-07 id3',
    ]);
    expect(await due(store, '2026-03-08T22:09:00Z')).toEqual(['2026-03-08 id1']);
    expect(await due(store, '2026-03-08T22:10:00Z')).toEqual([
      '2026-03-08 id1',
      '2026-03-09 timely',
    ]);
  });

  it('is nothing before posting time plus grace, and nothing after the retry window', async () => {
    const { store } = temp;
    // ID1 of 2026-11-20 is posted at 13:00 CST, 19:00Z.
    expect(await due(store, '2026-11-20T19:09:59.999Z')).toEqual([]);
    expect(await due(store, '2026-11-20T19:10:00Z')).toEqual(['2026-11-20 id1']);
    expect(await due(store, '2026-11-21T01:00:00Z')).toEqual([
      '2026-11-20 id1',
      '2026-11-21 timely',
      '2026-11-20 id2',
    ]);
    expect(await due(store, '2026-11-21T01:00:00.001Z')).toEqual([
      '2026-11-21 timely',
      '2026-11-20 id2',
    ]);
    const tight = { postingGraceMs: 0, retryWindowMs: HOUR };
    expect(await due(store, '2026-11-20T18:59:59.999Z', tight)).toEqual([]);
    expect(await due(store, '2026-11-20T19:00:00Z', tight)).toEqual(['2026-11-20 id1']);
    expect(await due(store, '2026-11-20T20:00:00.001Z', tight)).toEqual([]);
  });

  it('reaches back into the previous gas day when the retry window does', async () => {
    const { store } = temp;
    // 09:30 CST on 2026-11-21; ID3 of 2026-11-20 was posted at 22:00 CST the evening before.
    expect(await due(store, '2026-11-21T15:30:00Z')).toEqual([]);
    expect(await due(store, '2026-11-21T15:30:00Z', { retryWindowMs: 12 * HOUR })).toEqual([
      '2026-11-20 id3',
    ]);
  });

  it('leaves out cycles already stored, per pipeline', async () => {
    const { store } = temp;
    store.capacity.upsertCycle(
      {
        id: 1,
        pipeline_id: 4,
        pipeline_name: 'Texas Eastern Transmission',
        pipeline_slug: 'texas-eastern',
        pipeline_url: '',
        identifier: 'ID1',
        cycle: 'id1',
        gas_day: '2026-11-20',
        service_created_at: '2026-11-20T19:00:00Z',
        service_updated_at: '2026-11-20T19:00:00Z',
      },
      [],
      '2026-11-20T19:05:00Z',
    );
    expect(await due(store, '2026-11-20T19:10:00Z')).toEqual([]);
    expect(
      await dueCycles(asyncStoreOf(store), 'transco', new Date('2026-11-20T19:10:00Z')),
    ).toEqual([{ gasDay: '2026-11-20', cycle: 'id1' }]);
  });
});

describe('capacity sync', () => {
  it('reports each new cycle once, then fetches only latest while nothing is due', async () => {
    const s = await setup({ pipelines: ['transco', 'texas-eastern'] });
    const first = await s.sync();
    expect(first).toEqual({
      requests: 6,
      new: 6,
      updated: 0,
      unchanged: 0,
      notYetPosted: 0,
      withoutCapacity: [],
      failed: [],
    });
    expect(s.events.map(named)).toEqual([
      'transco 2026-11-20 id2',
      'transco 2026-11-20 id1',
      'transco 2026-11-21 timely',
      'texas-eastern 2026-11-20 id2',
      'texas-eastern 2026-11-20 id1',
      'texas-eastern 2026-11-21 timely',
    ]);
    for (const e of s.events) {
      expect(e).toMatchObject({ kind: 'capacity', change: 'new', version: 1 });
      expect(e.seenAt).toBe(toUtcIso(s.clock.now()));
      expect(e.locations.length).toBeGreaterThan(0);
      expect(s.store.capacity.locations(e.cycle.id)).toEqual(e.locations);
    }
    expect(s.store.capacity.count()).toBe(6);

    s.advance(15 * MINUTE);
    const second = await s.sync();
    expect(second).toEqual({
      requests: 2,
      new: 0,
      updated: 0,
      unchanged: 2,
      notYetPosted: 0,
      withoutCapacity: [],
      failed: [],
    });
    expect(s.events).toHaveLength(6);
    expect(s.client.stats.requests).toBe(8);
    // The API's latest is the cycle posted last; the store's is the last of the latest gas day.
    expect(s.store.capacity.latest('transco')).toMatchObject({
      gas_day: '2026-11-21',
      cycle: 'timely',
    });
    const seen = s.store.capacity
      .cycles('transco', '2026-11-20')
      .map((c) => [c.cycle, c.last_seen_at]);
    expect(seen).toEqual([
      ['id2', toUtcIso(s.clock.now())],
      ['id1', EVENING],
    ]);
    expect(await counter(s.metrics.capacityCycles)).toEqual({ new: 6, unchanged: 2 });
  });

  it('reports a republished cycle as updated once; a stored named cycle is not asked for again', async () => {
    const s = await setup();
    await s.sync();
    const id2 = s.events.find((e) => e.cycle.cycle === 'id2')!;
    const id1 = s.events.find((e) => e.cycle.cycle === 'id1')!;
    const target = id2.locations[0]!;
    const oac = target.oac === 4_321 ? 4_322 : 4_321;
    const published = s.sim.control.publishCycle({
      pipeline_slug: 'transco',
      cycle: 'id2',
      gas_day: '2026-11-20',
      locations: [{ identifier: target.identifier, oac }],
    });
    expect(published.cycle.id).toBe(id2.cycle.id);
    s.sim.control.publishCycle({
      pipeline_slug: 'transco',
      cycle: 'id1',
      gas_day: '2026-11-20',
      locations: [{ identifier: id1.locations[0]!.identifier, oac: 1 }],
    });

    s.advance(15 * MINUTE);
    expect(await s.sync()).toMatchObject({ requests: 1, updated: 1 });
    expect(s.events).toHaveLength(4);
    const updated = s.events[3]!;
    expect(updated).toMatchObject({ change: 'updated', version: 2 });
    expect(updated.cycle.id).toBe(id2.cycle.id);
    expect(updated.locations.find((l) => l.identifier === target.identifier)!.oac).toBe(oac);
    expect(s.store.capacity.locations(id2.cycle.id)).toEqual(updated.locations);

    s.advance(15 * MINUTE);
    expect(await s.sync()).toMatchObject({ requests: 1, updated: 0, unchanged: 1 });
    expect(s.events).toHaveLength(4);
    expect(s.store.capacity.cycles('transco').map((c) => [c.cycle, c.version])).toEqual([
      ['timely', 1],
      ['id2', 2],
      ['id1', 1],
    ]);
  });

  it('asks again for a cycle the pipeline posts late, and reports it once when it appears', async () => {
    // The simulated pipeline runs 25 minutes behind pipewatch's clock: it posts late.
    const s = await setup({ live: true, start: '2026-11-20T18:50:00Z', lagMs: 25 * MINUTE });

    // 13:15 CST: ID1 (13:00) is due, but the pipeline has not posted it; the latest cycle
    // posted is yesterday's ID3 (10 p.m., after the evening cycle of today at 9 p.m.).
    expect(await s.sync()).toMatchObject({ requests: 2, new: 1, notYetPosted: 1, failed: [] });
    expect(s.events.map(named)).toEqual(['transco 2026-11-19 id3']);

    s.advance(5 * MINUTE);
    expect(await s.sync()).toMatchObject({ requests: 2, new: 0, unchanged: 1, notYetPosted: 1 });
    expect(s.events).toHaveLength(1);

    // 17:45 CST: ID1 is there now (fetched by name, as timely for tomorrow is latest); ID2
    // (17:30) is due and not posted yet.
    s.advance(4 * HOUR + 25 * MINUTE);
    expect(await s.sync()).toMatchObject({ requests: 3, new: 2, notYetPosted: 1 });
    expect(s.events.map(named).slice(1)).toEqual([
      'transco 2026-11-21 timely',
      'transco 2026-11-20 id1',
    ]);

    s.advance(15 * MINUTE);
    expect(await s.sync()).toMatchObject({ requests: 1, new: 1, notYetPosted: 0 });
    s.advance(15 * MINUTE);
    expect(await s.sync()).toMatchObject({ requests: 1, new: 0, unchanged: 1 });

    expect(s.events.map(named)).toEqual([
      'transco 2026-11-19 id3',
      'transco 2026-11-21 timely',
      'transco 2026-11-20 id1',
      'transco 2026-11-20 id2',
    ]);
    expect(s.events.every((e) => e.change === 'new')).toBe(true);
  });

  it('records a pipeline that keeps failing, stores the others and ends in CapacitySyncError', async () => {
    const s = await setup({
      pipelines: ['transco', 'texas-eastern', 'tennessee'],
      client: { retry: { attempts: 1 } },
    });
    s.sim.control.injectFault({ kind: '500', path: '/ip/capacity/texas-eastern' });
    const error = await s.sync().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CapacitySyncError);
    const { result, message } = error as CapacitySyncError;
    expect(message).toMatch(/^capacity sync failed for texas-eastern: /);
    expect(result).toMatchObject({ requests: 7, new: 6, notYetPosted: 0 });
    expect(result.failed).toEqual([
      { pipeline: 'texas-eastern', cycle: 'latest', gasDay: null, error: expect.any(String) },
    ]);
    expect(result.failed[0]!.error).toMatch(/500/);
    expect(s.store.capacity.cycles('transco')).toHaveLength(3);
    expect(s.store.capacity.cycles('tennessee')).toHaveLength(3);
    expect(s.store.capacity.cycles('texas-eastern')).toHaveLength(0);

    s.advance(15 * MINUTE);
    expect(await s.sync()).toMatchObject({ requests: 5, new: 3, unchanged: 2, failed: [] });
    expect(s.events.filter((e) => e.cycle.pipeline_slug === 'texas-eastern')).toHaveLength(3);
  });

  it('names an unknown pipeline as the failure and still syncs the others', async () => {
    const s = await setup({ pipelines: ['no-such-pipeline', 'transco'] });
    const error = (await s.sync().catch((e: unknown) => e)) as CapacitySyncError;
    expect(error).toBeInstanceOf(CapacitySyncError);
    expect(error.message).toContain('no-such-pipeline');
    expect(error.result.failed).toEqual([
      {
        pipeline: 'no-such-pipeline',
        cycle: 'latest',
        gasDay: null,
        error: expect.stringMatching(/^unknown pipeline 'no-such-pipeline'/),
      },
    ]);
    expect(error.result.new).toBe(3);
  });

  it('stops the whole run at an authentication failure', async () => {
    const s = await setup({
      pipelines: ['transco', 'texas-eastern'],
      client: { key: 'wrong-key' },
    });
    await expect(s.sync()).rejects.toBeInstanceOf(AuthenticationError);
    expect(s.client.stats.requests).toBe(1);
    expect(s.store.capacity.count()).toBe(0);
  });

  it('rolls back a cycle whose hook throws; the next run fetches and reports it again', async () => {
    const s = await setup();
    let failOnce = true;
    s.hooks.capacity = async (e) => {
      if (e.cycle.cycle === 'id1' && failOnce) {
        failOnce = false;
        throw new Error('alert stage unavailable');
      }
      s.events.push(e);
    };
    const error = (await s.sync().catch((e: unknown) => e)) as CapacitySyncError;
    expect(error).toBeInstanceOf(CapacitySyncError);
    expect(error.result).toMatchObject({ requests: 3, new: 2 });
    expect(error.result.failed).toEqual([
      { pipeline: 'transco', cycle: 'id1', gasDay: '2026-11-20', error: 'alert stage unavailable' },
    ]);
    expect(s.store.capacity.has('transco', '2026-11-20', 'id1')).toBe(false);
    expect(s.store.capacity.count()).toBe(2);

    s.advance(15 * MINUTE);
    expect(await s.sync()).toMatchObject({ requests: 2, new: 1, unchanged: 1, failed: [] });
    expect(s.events.map(named)).toEqual([
      'transco 2026-11-20 id2',
      'transco 2026-11-21 timely',
      'transco 2026-11-20 id1',
    ]);
    expect(s.store.capacity.has('transco', '2026-11-20', 'id1')).toBe(true);
  });

  it('stores the locations that parse and counts the malformed ones it skips', async () => {
    const s = await setup();
    s.sim.control.injectFault({ kind: 'broken-record', path: '/ip/capacity/transco' });
    expect(await s.sync()).toMatchObject({ new: 3, failed: [] });
    const latest = s.events[0]!;
    const served = await s.client.capacity('transco');
    expect(latest.locations).toHaveLength(served.data.locations.length - 1);
    expect(s.store.capacity.locations(latest.cycle.id)).toHaveLength(latest.locations.length);
    expect(await counter(s.metrics.skippedRecords)).toEqual({ capacity: 1 });
  });

  it('fetches only the cycles a planned pipeline asks for, latest always', async () => {
    const s = await setup();
    const plan = capacityPlan(
      rulesOf(`rules:
  - name: timely-only
    capacity: { pipelines: [transco], cycles: [timely], oac_below: 1000 }
    notify: [{ console: true }]
`),
      [],
      [],
    );
    expect(await s.sync({ pipelines: plan.pipelines })).toMatchObject({ requests: 2, new: 2 });
    expect(s.events.map(named)).toEqual(['transco 2026-11-20 id2', 'transco 2026-11-21 timely']);
  });

  it('skips quietly, for a day, a pipeline without capacity data that no rule names', async () => {
    const s = await setup();
    await syncPipelines({
      client: s.client,
      store: asyncStoreOf(s.store),
      clock: s.clock,
      logger: silentLogger,
    });
    const tracked = s.store.pipelines.all().map((p) => p.slug);
    expect(tracked).toContain('kern-river');
    const plan = capacityPlan(
      rulesOf(`rules:
  - name: everywhere
    capacity: { cycles: [id1], oac_below: 1000 }
    notify: [{ console: true }]
`),
      [],
      ['kern-river', 'transco'],
    );
    const first = await s.sync({ pipelines: plan.pipelines });
    expect(first).toMatchObject({
      requests: 3,
      new: 2,
      failed: [],
      withoutCapacity: ['kern-river'],
    });
    expect(s.store.pipelines.bySlug('kern-river')?.capacity_missing_at).toBe(
      toUtcIso(s.clock.now()),
    );

    s.advance(15 * MINUTE);
    const second = await s.sync({ pipelines: plan.pipelines });
    expect(second).toMatchObject({ requests: 1, failed: [], withoutCapacity: ['kern-river'] });

    s.advance(24 * HOUR);
    const third = await s.sync({ pipelines: plan.pipelines });
    expect(third.withoutCapacity).toEqual(['kern-river']);
    expect(third.requests).toBeGreaterThanOrEqual(2);
  });

  it('reports a pipeline a rule names but the API does not have, naming the rule', async () => {
    const s = await setup();
    const plan = capacityPlan(
      rulesOf(`rules:
  - name: typo
    capacity: { pipelines: [transcoo], oac_below: 1000 }
    notify: [{ console: true }]
`),
      [],
      [],
    );
    const error = (await s
      .sync({ pipelines: plan.pipelines })
      .catch((e: unknown) => e)) as CapacitySyncError;
    expect(error).toBeInstanceOf(CapacitySyncError);
    expect(error.result.failed[0]!.error).toMatch(/^unknown pipeline 'transcoo'.*check typo$/);
  });

  it('stops when its signal is aborted', async () => {
    const s = await setup();
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    await expect(s.sync({}, controller.signal)).rejects.toThrow('shutting down');
    expect(s.client.stats.requests).toBe(0);
  });
});
