/**
 * `npm run bench [name…]`: runs the benchmarks (all, or those named), each in a process
 * of its own so that its peak memory is its own, prints their figures, and merges them
 * into bench/results.json under each benchmark's key. Each process gets a temporary
 * directory of its own (TMPDIR), removed when it ends, whatever it left there: the
 * ingest benchmarks alone write some 700 MB of databases a run.
 *
 * The program is built first (`npm run build`), and each benchmark process loads
 * pipewatch's modules from `dist/` (`compiled.mjs`): what it times is the code users run.
 * Each has a time limit: one that passes it is stopped, with whatever it started, and
 * fails with a line saying so, rather than holding the run forever.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asyncStoreBench } from './async-store.js';
import { buildDist } from './built.js';
import { chatAckBench } from './chat-ack.js';
import { chatAckDuringSyncBench } from './chat-ack-during-sync.js';
import { cliBench } from './cli.js';
import { clientBench } from './client.js';
import { deliveryBench } from './delivery.js';
import { demoBench } from './demo.js';
import { detectionBench } from './detection.js';
import { emailBench } from './email.js';
import { failoverBench } from './failover.js';
import { forgedFloodBench } from './forged-flood.js';
import { idleCpuBench } from './idle-cpu.js';
import { idleRssBench } from './idle-rss.js';
import { ingestBench } from './ingest.js';
import { latencyBench } from './latency.js';
import { outboxBench } from './outbox.js';
import { pacingBench } from './pacing.js';
import { regexBench } from './regex.js';
import { ingestWithRulesBench, rulesBench } from './rules.js';
import { rulesTestBench } from './rules-test.js';
import { steadyStateBench } from './steady-state.js';
import { storageBench } from './storage.js';
import { syncAtScaleBench } from './sync-at-scale.js';
import { syncCleanDbBench } from './sync-clean-db.js';

type Figures = Record<string, number | string>;

/** A benchmark, and how long its process may take before it is stopped as hung. */
interface Bench {
  run: () => Promise<Figures>;
  /** Minutes; several times what it takes on an idle 2-core machine. */
  limitMin: number;
}

const BENCHES: Record<string, Bench> = {
  client: { run: clientBench, limitMin: 10 },
  ingest: { run: ingestBench, limitMin: 30 },
  steady_state: { run: steadyStateBench, limitMin: 10 },
  rules: { run: rulesBench, limitMin: 20 },
  ingest_with_rules: { run: ingestWithRulesBench, limitMin: 45 },
  regex: { run: regexBench, limitMin: 10 },
  email: { run: emailBench, limitMin: 10 },
  latency: { run: latencyBench, limitMin: 10 },
  detection: { run: detectionBench, limitMin: 15 },
  pacing: { run: pacingBench, limitMin: 10 },
  demo: { run: demoBench, limitMin: 8 },
  chat_ack: { run: chatAckBench, limitMin: 15 },
  idle_rss: { run: idleRssBench, limitMin: 15 },
  cli: { run: cliBench, limitMin: 10 },
  idle: { run: idleCpuBench, limitMin: 60 },
  storage: { run: storageBench, limitMin: 15 },
  forged_flood: { run: forgedFloodBench, limitMin: 10 },
  sync_at_scale: { run: syncAtScaleBench, limitMin: 15 },
  chat_ack_during_sync: { run: chatAckDuringSyncBench, limitMin: 15 },
  sync_clean_db: { run: syncCleanDbBench, limitMin: 10 },
  delivery: { run: deliveryBench, limitMin: 10 },
  rules_test: { run: () => rulesTestBench(), limitMin: 40 },
  async_store: { run: asyncStoreBench, limitMin: 5 },
  failover: { run: failoverBench, limitMin: 10 },
  outbox: { run: outboxBench, limitMin: 20 },
};

const self = fileURLToPath(import.meta.url);
const resultsPath = fileURLToPath(new URL('./results.json', import.meta.url));
const args = process.argv.slice(2);

if (args[0] === '--child') {
  const figures = await BENCHES[args[1]!]!.run();
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
}

/**
 * Runs one benchmark's process in a process group of its own, so that what it started
 * (daemons, demos) ends with it; stops the group when it passes its time limit.
 */
function runChild(
  name: string,
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; timedOut: boolean }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', compiled, self, '--child', name],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env,
      detached: true,
    },
  );
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }, BENCHES[name]!.limitMin * 60_000);
  return new Promise((resolve) =>
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, timedOut });
    }),
  );
}

const unknown = args.filter((n) => !(n in BENCHES));
if (unknown.length > 0) {
  console.error(
    `unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`,
  );
  process.exit(2);
}
buildDist();
const compiled = fileURLToPath(new URL('./compiled.mjs', import.meta.url));
const results: Record<string, Figures> = existsSync(resultsPath)
  ? JSON.parse(readFileSync(resultsPath, 'utf8'))
  : {};
for (const name of Object.keys(BENCHES)) {
  if (args.length > 0 && !args.includes(name)) continue;
  console.log(`== ${name}`);
  const scratch = mkdtempSync(join(tmpdir(), `pipewatch-bench-${name}-`));
  const child = await runChild(name, { ...process.env, TMPDIR: scratch });
  rmSync(scratch, { recursive: true, force: true });
  if (child.timedOut) {
    console.error(
      `${name} failed: still running after its time limit of ${BENCHES[name]!.limitMin} min, so it was stopped; no figure written`,
    );
    process.exit(1);
  }
  if (child.status !== 0) {
    console.error(`${name} failed (exit ${child.status})`);
    process.exit(1);
  }
  const figures = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Figures;
  for (const [key, value] of Object.entries(figures)) console.log(`  ${key}: ${value}`);
  results[name] = figures;
}
writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
console.log(`written ${resultsPath}`);
