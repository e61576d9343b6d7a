/**
 * `npm run bench [name…]`: runs the benchmarks (all, or those named), each in a process
 * of its own so that its peak memory is its own, prints their figures, and merges them
 * into bench/results.json under each benchmark's key. Each process gets a temporary
 * directory of its own (TMPDIR), removed when it ends, whatever it left there: the
 * ingest benchmarks alone write some 700 MB of databases a run.
 *
 * The program is built first (`npm run build`), and each benchmark process loads
 * pipewatch's modules from `dist/` (`compiled.mjs`): what it times is the code users run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDist } from './built.js';
import { chatAckBench } from './chat-ack.js';
import { cliBench } from './cli.js';
import { clientBench } from './client.js';
import { demoBench } from './demo.js';
import { detectionBench } from './detection.js';
import { emailBench } from './email.js';
import { idleCpuBench } from './idle-cpu.js';
import { idleRssBench } from './idle-rss.js';
import { ingestBench } from './ingest.js';
import { latencyBench } from './latency.js';
import { pacingBench } from './pacing.js';
import { regexBench } from './regex.js';
import { ingestWithRulesBench, rulesBench } from './rules.js';
import { steadyStateBench } from './steady-state.js';
import { storageBench } from './storage.js';

type Figures = Record<string, number | string>;
const BENCHES: Record<string, () => Promise<Figures>> = {
  client: clientBench,
  ingest: ingestBench,
  steady_state: steadyStateBench,
  rules: rulesBench,
  ingest_with_rules: ingestWithRulesBench,
  regex: regexBench,
  email: emailBench,
  latency: latencyBench,
  detection: detectionBench,
  pacing: pacingBench,
  demo: demoBench,
  chat_ack: chatAckBench,
  idle_rss: idleRssBench,
  cli: cliBench,
  idle: idleCpuBench,
  storage: storageBench,
};

const self = fileURLToPath(import.meta.url);
const resultsPath = fileURLToPath(new URL('./results.json', import.meta.url));
const args = process.argv.slice(2);

if (args[0] === '--child') {
  const figures = await BENCHES[args[1]!]!();
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
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
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', compiled, self, '--child', name],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TMPDIR: scratch },
    },
  );
  rmSync(scratch, { recursive: true, force: true });
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
