/**
 * `rules_test`: how `pipewatch rules test` scales with the rules in force. A database of
 * 50,000 simulator notices (stored as a daemon stores them: the first 49,000 by its
 * baseline, the rest as news judged by the rule files' rules) is judged by
 * `rules test --since 5000d`, text output counted and dropped, once under the 3 rules of
 * the rule files alone and once with 10,000 subscriptions made as people make them
 * (`subscriptions.ts`) stored after the notices. Each run is a process of its own
 * (pipewatch's modules from `dist/`); its figure is the CPU seconds it used, from its own
 * `process.cpuUsage` at the end, the median of 3 runs, with their spread.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { AlertEngine } from '../src/alerts/engine.js';
import { type ChatRuleCommand, parseChatCommand } from '../src/chat/grammar.js';
import { storeSubscription } from '../src/chat/subscribe.js';
import { runCli } from '../src/cli/index.js';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { toUtcIso } from '../src/lib/time.js';
import { loadRules } from '../src/rules/loader.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { simulatorNotices } from './simulator-notices.js';
import {
  benchChannel,
  seededRandom,
  storeCatalogPipelines,
  subscribeText,
} from './subscriptions.js';

const NOTICES = 50_000;
/** The notices the daemon stored after its baseline, judged by the rule files' rules. */
const NEWS = 1_000;
const SUBSCRIPTIONS = 10_000;
const RUNS = 3;

const RULES = `rules:
  - name: transco-constraints
    notices: { pipelines: [transco], types: [constraint] }
    notify: [{ slack: "#gas" }]
  - name: critical-force-majeure
    notices: { categories: [critical], text: "force majeure|OFO" }
    notify: [{ email: ops@example.com }]
  - name: tetco-response-reminders
    deadlines: { field: response_at, before: [24h, 2h], pipelines: [texas-eastern] }
    notify: [{ slack_dm: U0ALICE }]
`;

const ARGV = ['rules', 'test', '--since', '5000d'];

if (process.argv[2] === '--rules-test-child') {
  const [, , , dataDir, rulesDir] = process.argv;
  let bytes = 0;
  let counted: string | undefined;
  const stdout = new Writable({
    write(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      counted = /^(\d+) notices posted/m.exec(chunk.toString())?.[1] ?? counted;
      done();
    },
  });
  const cpu = process.cpuUsage();
  const code = await runCli(ARGV, {
    stdout,
    stderr: process.stderr,
    env: { LOG_LEVEL: 'warn', PIPEWATCH_DATA_DIR: dataDir!, PIPEWATCH_RULES_DIR: rulesDir! },
    cwd: dataDir!,
    signal: new AbortController().signal,
  });
  const used = process.cpuUsage(cpu);
  process.stdout.write(
    `${JSON.stringify({ code, bytes, counted: Number(counted), cpu_s: (used.user + used.system) / 1e6 })}\n`,
  );
  process.exit(0);
}

/** Stores the notices as a daemon would: a baseline, then news judged by `rulesDir`'s rules. */
export async function storeNotices(store: Store, rulesDir: string): Promise<void> {
  storeCatalogPipelines(store, systemClock.now());
  const notices = simulatorNotices(NOTICES, 5);
  const context = {
    seenAt: toUtcIso(systemClock.now()),
    alertableAfter: '2000-01-01T00:00:00Z' as const,
    pipelines: new Set<string>(),
  };
  const baseline = NOTICES - NEWS;
  for (let i = 0; i < baseline; i += 500)
    await ingestNoticePage(asyncStoreOf(store), notices.slice(i, Math.min(i + 500, baseline)), {
      ...context,
      baseline: true,
    });
  const { rules } = loadRules(rulesDir);
  const engine = new AlertEngine(
    { store: asyncStoreOf(store), clock: systemClock, logger: silentLogger, maxAlertAgeMs: 1e12 },
    rules,
  );
  await ingestNoticePage(asyncStoreOf(store), notices.slice(baseline), {
    ...context,
    baseline: false,
    hooks: engine.hooks(),
  });
}

/** `count` channel subscriptions, 50 a channel, stored as chat stores them. */
export async function storeSubscriptions(store: Store, count: number): Promise<void> {
  const vocabulary = {
    pipelines: store.pipelines.all().map((p) => p.slug),
    ...store.notices.vocabulary(),
    locations: () => undefined,
  };
  const random = seededRandom(3);
  const at = toUtcIso(systemClock.now());
  for (let i = 0; i < count; i++) {
    const parsed = parseChatCommand(subscribeText(random), vocabulary);
    if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('; '));
    const channel = benchChannel(i % 200);
    const stored = await storeSubscription(
      asyncStoreOf(store),
      {
        target: { kind: 'slack', channel },
        channel: `slack:${channel}`,
        source: 'slack',
        by: 'U0B',
      },
      parsed.command as ChatRuleCommand,
      at,
    );
    if ('problem' in stored) throw new Error(stored.problem);
  }
}

interface Run {
  code: number;
  bytes: number;
  counted: number;
  cpu_s: number;
}

function run(dataDir: string, rulesDir: string): Run {
  const self = fileURLToPath(import.meta.url);
  const compiled = fileURLToPath(new URL('./compiled.mjs', import.meta.url));
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', compiled, self, '--rules-test-child', dataDir, rulesDir],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 },
  );
  if (child.status !== 0) throw new Error(`rules test exited ${child.status}`);
  const result = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Run;
  if (result.code !== 0 || result.counted !== NOTICES)
    throw new Error(`rules test gave ${result.code} over ${result.counted} notices`);
  return result;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => round2(Math.max(...xs) - Math.min(...xs));

/** The `rules_test` figures. */
export async function rulesTestBench(runs = RUNS): Promise<Record<string, number>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-rules-test-'));
  const rulesDir = mkdtempSync(join(tmpdir(), 'pipewatch-rules-test-rules-'));
  try {
    writeFileSync(join(rulesDir, 'rules.yaml'), RULES);
    const store = Store.open(dataDir);
    try {
      await storeNotices(store, rulesDir);
    } finally {
      store.close();
    }
    const few = Array.from({ length: runs }, () => run(dataDir, rulesDir).cpu_s);
    const withSubs = Store.open(dataDir);
    try {
      await storeSubscriptions(withSubs, SUBSCRIPTIONS);
    } finally {
      withSubs.close();
    }
    const many = Array.from({ length: runs }, () => run(dataDir, rulesDir).cpu_s);
    return {
      notices: NOTICES,
      cpu_s_3_rules: round2(median(few)),
      cpu_s_3_rules_spread: spread(few),
      cpu_s_3_rules_and_10000_subscriptions: round2(median(many)),
      cpu_s_3_rules_and_10000_subscriptions_spread: spread(many),
      ratio: round2(median(many) / median(few)),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(rulesDir, { recursive: true, force: true });
  }
}
