/**
 * `sync_at_scale`: what one notice sync costs, and how long it holds the event loop, when
 * chat users have stored a lot: 10,000 channel subscriptions (made through the chat core,
 * 50 in each of 200 Slack channels), 2,000 reminders of one person and 5,000 mutes by
 * them (with 13 silences of an operator; `chat-state.ts`). This process is the daemon's
 * side, wired as `pipewatch run` wires it: a real Store in a temp dir, an `AlertEngine`
 * with 10 file rules and the subscriptions, the sync through the real client. The
 * upstream is the simulator in a process of its own (`sync-at-scale-api.ts`), 14 days of
 * history read by the baseline first; each sync then finds 20 notices added through its
 * control API just before, one on each pipeline in turn, as its generator spreads them,
 * whatever each is about (deadlines, supersessions) as the generator makes it.
 *
 * Figures, over `SYNCS` syncs after two to warm up, each the median with `_min` and
 * `_max`: `sync_cpu_ms`, the CPU time of this process during one sync, with nothing else
 * to do meanwhile (goal: 200 ms or less); `block_ms`, the longest the event loop was held
 * during one sync (`monitorEventLoopDelay`, 1 ms resolution; goal: 50 ms or less);
 * `sync_wall_ms`; and what a sync decided: `alerts_per_sync` (queued), `held_per_sync`
 * (held back by a silence), `reminders_per_sync` (reminder rows planned).
 * `chat_ack_during_sync` answers chat commands on the same state meanwhile.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { AlertEngine } from '../src/alerts/engine.js';
import { ChatCore } from '../src/chat/service.js';
import type { IngestDeps } from '../src/ingest/events.js';
import { noticeSyncDefaults, syncNotices } from '../src/ingest/notice-sync.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { toUtcIso } from '../src/lib/time.js';
import { simulatorDefaults } from '../src/simulator/options.js';
import { PIPELINES } from '../src/simulator/pipelines.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { PipelineApiClient } from '../src/upstream/client.js';
import { percentile } from './chat-ack.js';
import { storeMutes, storeReminders } from './chat-state.js';
import { fileRules, TYPES } from './rules.js';
import {
  makeSubscriptions,
  seededRandom,
  storeCatalogPipelines,
  UNLIMITED_CHAT,
} from './subscriptions.js';

const SUBSCRIPTIONS = 10_000;
export const SUBSCRIBED_CHANNELS = 200;
const REMINDERS = 2_000;
export const MUTES = 5_000;
export const NOTICES_PER_SYNC = 20;
const WARM_UP = 2;
const SYNCS = 9;
/** `PIPEWATCH_MAX_ALERT_AGE`'s default. */
const MAX_ALERT_AGE_MS = 86_400_000;

export const round2 = (n: number) => Math.round(n * 100) / 100;
export const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

if (TYPES.length !== NOTICES_PER_SYNC) throw new Error('one sync must hold a notice of each type');

/** The upstream in its own process, once it listens. */
export async function upstream(): Promise<{ url: string; close(): Promise<void> }> {
  const child: ChildProcess = fork(
    fileURLToPath(new URL('./sync-at-scale-api.ts', import.meta.url)),
    [],
    { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  const { url } = await new Promise<{ url: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the upstream exited (${code})`)));
    child.once('message', (m) => resolve(m as { url: string }));
  });
  return {
    url,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

/** A store, its engine and the sync's dependencies, against the upstream at `url`. */
export function daemonSide(url: string, dir: string) {
  const store = Store.open(dir);
  storeCatalogPipelines(store, new Date());
  const deps = {
    store: asyncStoreOf(store),
    clock: systemClock,
    logger: silentLogger,
    maxAlertAgeMs: MAX_ALERT_AGE_MS,
  };
  const engine = new AlertEngine(deps, fileRules());
  const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
  const client = new PipelineApiClient({
    baseUrl: url,
    user: premium.username,
    key: premium.key,
    rateLimit: { minTimeMs: 0 },
  });
  const ingest: IngestDeps = {
    client,
    store: deps.store,
    clock: systemClock,
    logger: silentLogger,
    hooks: engine.hooks(),
  };
  const options = { ...noticeSyncDefaults, maxAlertAgeMs: MAX_ALERT_AGE_MS };
  let added = 0;
  /** Adds 20 notices upstream, one on each pipeline in turn; `fields` of each, if given. */
  const publish = async (fields: (i: number) => Record<string, string> = () => ({})) => {
    for (let i = 0; i < NOTICES_PER_SYNC; i++) {
      const pipeline = PIPELINES[added++ % PIPELINES.length]!;
      const answer = await fetch(`${url}/_control/notices`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pipeline_slug: pipeline.slug, ...fields(i) }),
      });
      if (!answer.ok) throw new Error(`the upstream refused a notice: ${await answer.text()}`);
    }
  };
  /** What one sync of the notices just published cost and decided. */
  const sync = async (delay: ReturnType<typeof monitorEventLoopDelay>) => {
    const before = counts(store);
    delay.reset();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await syncNotices(ingest, options);
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    // The simulator's own timetable may add one now and then; fewer would measure less.
    if (result.new < NOTICES_PER_SYNC)
      throw new Error(`a sync found ${result.new} new notices, not ${NOTICES_PER_SYNC}`);
    const after = counts(store);
    return {
      cpuMs: (used.user + used.system) / 1000,
      wallMs: wall,
      blockMs: delay.max / 1e6,
      alerts: after.alerts - before.alerts,
      held: after.held - before.held,
      reminders: after.reminders - before.reminders,
    };
  };
  return { store, engine, deps, ingest, options, publish, sync };
}

/** Rows that only grow, counted to tell what a sync decided. */
function counts(store: Store) {
  const n = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
  return {
    alerts: n('SELECT count(*) AS n FROM outbox'),
    held: n('SELECT count(*) AS n FROM held'),
    reminders: n('SELECT count(*) AS n FROM reminders'),
  };
}

/** Runs `warm` syncs, then `count` measured ones; each one's figures. */
export async function measuredSyncs(
  side: ReturnType<typeof daemonSide>,
  warm: number,
  count: number,
) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  try {
    const runs = [];
    for (let i = 0; i < warm + count; i++) {
      await side.publish();
      const run = await side.sync(delay);
      if (i >= warm) runs.push(run);
    }
    return runs;
  } finally {
    delay.disable();
  }
}

/** A daemon's side holding the chat state of `sync_at_scale`, on an upstream of its own. */
export async function largeChatState(dir: string) {
  const api = await upstream();
  const side = daemonSide(api.url, dir);
  const { store, engine, deps } = side;
  // The baseline first, and a notice of each type and a critical one, so that chat checks
  // the types and categories people type against the notices', as it does.
  await syncNotices(side.ingest, side.options);
  await side.publish((i) => ({ type: TYPES[i]!, category: i === 0 ? 'Critical' : 'Info' }));
  await side.sync(monitorEventLoopDelay());
  const core = new ChatCore({
    ...deps,
    engine,
    policy: { admins: new Set() },
    limits: UNLIMITED_CHAT,
  });
  await makeSubscriptions(core, SUBSCRIPTIONS, SUBSCRIBED_CHANNELS, seededRandom(1));
  const now = new Date();
  storeReminders(store, REMINDERS, now);
  const silences = storeMutes(store, MUTES, SUBSCRIBED_CHANNELS, now);
  const inForce = store.silences.active(toUtcIso(new Date())).length;
  if (inForce !== silences) throw new Error(`${inForce} silences in force, not ${silences}`);
  if ((await engine.rules()).length !== fileRules().length + SUBSCRIPTIONS + REMINDERS)
    throw new Error(`${(await engine.rules()).length} rules in force`);
  return {
    side,
    core,
    /** What is stored, to show the state each figure was measured on. */
    state: () => ({
      subscriptions: store.subscriptions.counts().total,
      silences: store.silences.active(toUtcIso(new Date())).length,
      reminders_stored: counts(store).reminders,
    }),
    close: async () => {
      store.close();
      await api.close();
    },
  };
}

/** The median of `values` with its `_min` and `_max`, under `name`. */
export function spread(name: string, values: readonly number[]): Record<string, number> {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    [name]: median(sorted),
    [`${name}_min`]: round2(sorted[0]!),
    [`${name}_max`]: round2(sorted.at(-1)!),
  };
}

/** The `sync_at_scale` figures. */
export async function syncAtScaleBench(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-'));
  try {
    const large = await largeChatState(dir);
    const runs = await measuredSyncs(large.side, WARM_UP, SYNCS);
    const state = large.state();
    await large.close();
    return {
      ...state,
      notices_per_sync: NOTICES_PER_SYNC,
      syncs: SYNCS,
      ...spread(
        'sync_cpu_ms',
        runs.map((r) => r.cpuMs),
      ),
      ...spread(
        'block_ms',
        runs.map((r) => r.blockMs),
      ),
      sync_wall_ms: median(runs.map((r) => r.wallMs)),
      alerts_per_sync: median(runs.map((r) => r.alerts)),
      held_per_sync: median(runs.map((r) => r.held)),
      reminders_per_sync: median(runs.map((r) => r.reminders)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
