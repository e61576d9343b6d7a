/**
 * Detection to delivery: from the simulator publishing a notice to the Slack fake
 * accepting the message, given that the poll that sees it has started. Each round
 * publishes one Transco constraint notice and then runs what `pipewatch run` runs when
 * the notice timer fires: the notice sync (deciding in its transactions) and the
 * dispatcher, woken by the new outbox row. Rounds are a second and a half apart, so the
 * channel's pacing (one message a second per channel) never holds a message back.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlertEngine } from '../src/alerts/engine.js';
import { createSlackChannels } from '../src/channels/slack/index.js';
import type { ChannelSet } from '../src/channels/types.js';
import { Dispatcher } from '../src/delivery/dispatcher.js';
import { noticeSyncDefaults, syncNotices } from '../src/ingest/notice-sync.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { simulatorDefaults, startSimulator } from '../src/simulator/index.js';
import { Store } from '../src/store/index.js';
import { PipelineApiClient } from '../src/upstream/client.js';
import { FAKE_TOKEN, startSlackFake } from '../test/fakes/slack.js';

const ROUNDS = 40;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[i]! * 10) / 10;
}

export async function latencyBench(): Promise<Record<string, number>> {
  const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
  const sim = await startSimulator({ seed: 3, control: true });
  const slack = await startSlackFake();
  const store = Store.open(mkdtempSync(join(tmpdir(), 'pipewatch-latency-')));
  const client = new PipelineApiClient({
    baseUrl: sim.url,
    user: premium.username,
    key: premium.key,
    rateLimit: { minTimeMs: 0 },
  });
  const deps = { clock: systemClock, logger: silentLogger };
  const { slack: channel } = createSlackChannels({ token: FAKE_TOKEN, apiUrl: slack.url }, deps);
  const channels: ChannelSet = { for: () => channel as never };
  const engine = new AlertEngine({ store, ...deps, maxAlertAgeMs: 86_400_000 }, [
    {
      kind: 'notices',
      name: 'transco-constraints',
      at: { file: 'bench', line: 1, col: 1 },
      filter: { pipelines: ['transco'], types: ['constraint'] },
      on: ['new'],
      notify: [{ kind: 'slack', channel: '#gas' }],
    },
  ]);
  const dispatcher = new Dispatcher(
    { store, channels, ...deps },
    { digestWindowMs: 0, maxAgeMs: 3_600_000 },
  );
  const sync = {
    client,
    store,
    ...deps,
    hooks: engine.hooks({ notices: () => dispatcher.wake() }),
  };
  const options = { ...noticeSyncDefaults, maxAlertAgeMs: 86_400_000 };
  const stop = new AbortController();
  try {
    await syncNotices(sync, options);
    const running = dispatcher.run(stop.signal, 1_000);
    const samples: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = slack.posts.length;
      sim.control.addNotice({
        pipeline_slug: 'transco',
        type: 'Capacity Constraint',
        subject: `Capacity Constraint - Station ${round}`,
        category: 'Critical',
        status: 'Initiate',
      });
      const published = performance.now();
      await syncNotices(sync, options);
      while (slack.posts.length === before) await new Promise((r) => setTimeout(r, 1));
      samples.push(slack.posts.at(-1)!.at - published);
      await new Promise((r) => setTimeout(r, 1_500));
    }
    stop.abort();
    await running;
    const sorted = samples.sort((a, b) => a - b);
    return { p50_ms: percentile(sorted, 50), p99_ms: percentile(sorted, 99), rounds: ROUNDS };
  } finally {
    stop.abort();
    await channel.close?.();
    await client.close();
    store.close();
    await slack.close();
    await sim.close();
  }
}
