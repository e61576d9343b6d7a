/**
 * `sync_clean_db`: what a sync of 20 new notices costs on a clean database holding one
 * kind of chat state, as first measured when syncs took seconds. `silences_sync_cpu_ms`:
 * 5,000 mutes of one person (`chat-state.ts`) and 100 subscriptions that every notice
 * matches, in channels none of the mutes is on, so that every alert meets the mutes on
 * its pipeline and none holds it. `reminders_sync_cpu_ms`: 1,000 reminders of one
 * person. Each the CPU time of this process during a sync, the median of `SYNCS` syncs
 * after one to warm up, with `_min` and `_max`; each scenario on an upstream of its own
 * (one that others added notices to would hand its first sync after the baseline all of
 * those within the late-posting window), wired as `sync_at_scale` is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseChatCommand } from '../src/chat/grammar.js';
import { storeSubscription } from '../src/chat/subscribe.js';
import { syncNotices } from '../src/ingest/notice-sync.js';
import { toUtcIso } from '../src/lib/time.js';
import { PIPELINES } from '../src/simulator/pipelines.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { storeMutes, storeReminders } from './chat-state.js';
import { benchChannel } from './subscriptions.js';
import {
  daemonSide,
  MUTES,
  measuredSyncs,
  NOTICES_PER_SYNC,
  SUBSCRIBED_CHANNELS,
  spread,
  upstream,
} from './sync-at-scale.js';

const SYNCS = 5;

/** Runs `scenario` on a fresh store against an upstream of its own. */
async function onItsOwn<T>(
  scenario: (side: ReturnType<typeof daemonSide>) => Promise<T>,
): Promise<T> {
  const api = await upstream();
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-'));
  const side = daemonSide(api.url, dir);
  try {
    return await scenario(side);
  } finally {
    side.store.close();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 5,000 mutes and 100 subscriptions every notice matches: each sync's CPU ms. */
async function silences(side: ReturnType<typeof daemonSide>): Promise<number[]> {
  const { store } = side;
  const vocabulary = {
    pipelines: PIPELINES.map((p) => p.slug),
    ...store.notices.vocabulary(),
    locations: () => undefined,
  };
  const parsed = parseChatCommand(`subscribe ${vocabulary.pipelines.join(',')}`, vocabulary);
  if (!parsed.ok || parsed.command.verb !== 'subscribe') throw new Error('subscribe refused');
  const at = toUtcIso(new Date());
  for (let n = 0; n < 100; n++) {
    const channel = benchChannel(500 + n);
    const made = await storeSubscription(
      asyncStoreOf(store),
      {
        target: { kind: 'slack', channel },
        channel: `slack:${channel}`,
        source: 'slack',
        by: 'U0BENCH0',
      },
      parsed.command,
      at,
    );
    if ('problem' in made) throw new Error(made.problem);
  }
  storeMutes(store, MUTES, SUBSCRIBED_CHANNELS, new Date(), 0);
  await syncNotices(side.ingest, side.options);
  const runs = await measuredSyncs(side, 1, SYNCS);
  for (const r of runs)
    if (r.alerts < 100 * NOTICES_PER_SYNC * 0.9)
      throw new Error(`a sync queued ${r.alerts} alerts: the subscriptions did not match`);
  return runs.map((r) => r.cpuMs);
}

/** 1,000 reminders of one person: each sync's CPU ms. */
async function reminders(side: ReturnType<typeof daemonSide>): Promise<number[]> {
  storeReminders(side.store, 1_000, new Date());
  await syncNotices(side.ingest, side.options);
  const runs = await measuredSyncs(side, 1, SYNCS);
  return runs.map((r) => r.cpuMs);
}

/** The `sync_clean_db` figures. */
export async function syncCleanDbBench(): Promise<Record<string, number>> {
  return {
    notices_per_sync: NOTICES_PER_SYNC,
    syncs: SYNCS,
    ...spread('silences_sync_cpu_ms', await onItsOwn(silences)),
    ...spread('reminders_sync_cpu_ms', await onItsOwn(reminders)),
  };
}
