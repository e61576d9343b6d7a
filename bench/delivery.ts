/**
 * What delivering costs with many subscribers: 10,000 subscriptions made as people make
 * them (`subscriptions.ts`), each sending to a webhook URL of its own on one host (the
 * loopback receiver, `hook-receiver.ts`, in a process of its own so its work is not
 * counted), and a burst of new simulator notices stored as a sync stores a page, which
 * the subscriptions turn into some 1,200 alerts. Then the dispatcher sends them, as the
 * daemon builds its webhook channel, until every one is confirmed.
 * - `cpu_ms_per_delivered_alert`: the two below together, what each alert costs from
 *   the notice stored to the receiver's answer;
 * - `decide_cpu_ms_per_alert`: CPU of storing the burst and deciding it (the outbox
 *   rows written in the same transaction), per alert queued;
 * - `send_cpu_ms_per_alert`: CPU of the dispatcher and the webhook channel, per alert
 *   delivered (claiming, reading, rendering, sending, recording, and the log line of
 *   each, at `info` as the daemon logs, written to /dev/null);
 * - `last_target_s`: from the start of sending to the last target's first alert at the
 *   receiver, wall time: what the last subscriber waits once the burst is decided.
 * Each is the median of three rounds (a fresh database each), with their spread.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AlertEngine } from '../src/alerts/engine.js';
import type { ChannelSet } from '../src/channels/types.js';
import { createWebhookChannel } from '../src/channels/webhook/send.js';
import { type ChatRuleCommand, parseChatCommand } from '../src/chat/grammar.js';
import { storeSubscription } from '../src/chat/subscribe.js';
import { Dispatcher } from '../src/delivery/dispatcher.js';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { systemClock } from '../src/lib/clock.js';
import { createLogger, type Logger } from '../src/lib/logger.js';
import { toUtcIso } from '../src/lib/time.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { simulatorNotices } from './simulator-notices.js';
import { seededRandom, storeCatalogPipelines, subscribeText } from './subscriptions.js';

const SUBSCRIPTIONS = 10_000;
/** Notices stored before the subscriptions, as a baseline. */
const HISTORY = 200;
/** New notices in the burst. */
const BURST = 9;
const ROUNDS = 3;

interface Receiver {
  url: string;
  arrivals(): Promise<{ count: number; paths: Record<string, number> }>;
  close(): void;
}

async function startReceiver(): Promise<Receiver> {
  const script = fileURLToPath(new URL('./hook-receiver.ts', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the receiver exited ${code}`)));
  });
  const url = `http://127.0.0.1:${port.trim()}`;
  return {
    url,
    async arrivals() {
      const response = await fetch(`${url}/arrivals`);
      return (await response.json()) as { count: number; paths: Record<string, number> };
    },
    close: () => child.kill('SIGTERM'),
  };
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Round {
  alerts: number;
  decideMs: number;
  sendMs: number;
  lastTargetS: number;
  targets: number;
}

async function round(
  receiverUrl: string,
  receiver: Receiver,
  r: number,
  logger: Logger,
): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-delivery-'));
  const store = Store.open(dir);
  const clock = systemClock;
  try {
    storeCatalogPipelines(store, clock.now());
    const notices = simulatorNotices(HISTORY + BURST, 7);
    const context = {
      seenAt: toUtcIso(clock.now()),
      alertableAfter: '2000-01-01T00:00:00Z' as const,
      pipelines: new Set<string>(),
    };
    await ingestNoticePage(asyncStoreOf(store), notices.slice(0, HISTORY), {
      ...context,
      baseline: true,
    });
    const vocabulary = {
      pipelines: store.pipelines.all().map((p) => p.slug),
      ...store.notices.vocabulary(),
      locations: () => undefined,
    };
    const random = seededRandom(11);
    const made = toUtcIso(new Date(clock.now().getTime() - 60_000));
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const parsed = parseChatCommand(subscribeText(random), vocabulary);
      if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('; '));
      const target = { kind: 'webhook' as const, url: `${receiverUrl}/hook/r${r}/${i}` };
      const stored = await storeSubscription(
        asyncStoreOf(store),
        { target, channel: null, source: 'cli', by: 'bench' },
        parsed.command as ChatRuleCommand,
        made,
      );
      if ('problem' in stored) throw new Error(stored.problem);
    }
    const engine = new AlertEngine(
      { store: asyncStoreOf(store), clock, logger, maxAlertAgeMs: 1e12 },
      [],
    );
    if ((await engine.rules()).length !== SUBSCRIPTIONS)
      throw new Error('subscriptions not in force');

    const decideStart = cpuMs();
    await ingestNoticePage(asyncStoreOf(store), notices.slice(HISTORY), {
      ...context,
      seenAt: toUtcIso(clock.now()),
      baseline: false,
      hooks: engine.hooks(),
    });
    const decideMs = cpuMs() - decideStart;
    const alerts = store.outbox.counts().pending;
    const targets = new Set(store.outbox.backlog().map((b) => JSON.stringify(b.target))).size;

    const webhook = createWebhookChannel({}, { clock, logger });
    const channels: ChannelSet = { for: () => webhook as never };
    const dispatcher = new Dispatcher(
      { store: asyncStoreOf(store), channels, clock, logger },
      { digestWindowMs: 5_000, maxAgeMs: 6 * 3_600_000 },
    );
    const sendStart = cpuMs();
    const wallStart = Date.now();
    const result = await dispatcher.dispatchDue();
    const sendMs = cpuMs() - sendStart;
    await webhook.close?.();
    if (result.sent !== alerts) throw new Error(`${result.sent} of ${alerts} alerts delivered`);
    const { paths } = await receiver.arrivals();
    const mine = Object.entries(paths).filter(([p]) => p.startsWith(`/hook/r${r}/`));
    const last = Math.max(...mine.map(([, at]) => at));
    return {
      alerts,
      decideMs,
      sendMs,
      lastTargetS: (last - wallStart) / 1000,
      targets,
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => round2(Math.max(...xs) - Math.min(...xs));

export async function deliveryBench(): Promise<Record<string, number>> {
  const receiver = await startReceiver();
  // As the daemon logs: a JSON line for each alert sent, here thrown away.
  const sink = createWriteStream('/dev/null');
  const logger = createLogger({ level: 'info', destination: sink });
  try {
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round(receiver.url, receiver, r, logger));
    const decide = rounds.map((x) => x.decideMs / x.alerts);
    const send = rounds.map((x) => x.sendMs / x.alerts);
    const last = rounds.map((x) => x.lastTargetS);
    const whole = rounds.map((x) => (x.decideMs + x.sendMs) / x.alerts);
    return {
      subscriptions: SUBSCRIPTIONS,
      burst_notices: BURST,
      alerts: rounds[0]!.alerts,
      targets: rounds[0]!.targets,
      cpu_ms_per_delivered_alert: round2(median(whole)),
      cpu_ms_per_delivered_alert_spread: spread(whole),
      decide_cpu_ms_per_alert: round2(median(decide)),
      decide_cpu_ms_per_alert_spread: spread(decide),
      send_cpu_ms_per_alert: round2(median(send)),
      send_cpu_ms_per_alert_spread: spread(send),
      last_target_s: round2(median(last)),
      last_target_s_spread: spread(last),
      rounds: ROUNDS,
    };
  } finally {
    receiver.close();
    sink.end();
  }
}
