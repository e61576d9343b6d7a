/**
 * `cli`: how long a short command of the built command line takes, as users run it
 * (`npm run build`, then `dist/main.js …` by its first line, as `npx pipewatch …`): `--help`, and `status` against a fresh
 * data directory holding an empty database (status reads only the database and the rule
 * files; it calls no API). Each is started as a process `RUNS` times; the figures are the
 * median wall time from spawn to exit, and the peak resident memory of one more run
 * (read by the child itself at exit, through a module preloaded by `NODE_OPTIONS` that
 * writes `process.resourceUsage().maxRSS` to a file).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../src/store/index.js';
import { programCommand } from '../test/fakes/daemon-process.js';
import { buildDist, ROOT } from './built.js';
import { median } from './median.js';

const RUNS = 10;

/** Runs `dist/main.js args`; fails unless it exits with `status` and prints `expect`. */
function run(args: string[], env: NodeJS.ProcessEnv, status: number, expect: string): number {
  const started = process.hrtime.bigint();
  const child = spawnSync(...programCommand('executable', args), {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (child.status !== status || !child.stdout.includes(expect)) {
    throw new Error(
      `pipewatch ${args.join(' ')} exited ${child.status}, expected ${status} and '${expect}':\n${child.stderr}`,
    );
  }
  return ms;
}

/** Median milliseconds of `RUNS` runs, and the peak RSS of one more, in MB. */
function measure(args: string[], env: NodeJS.ProcessEnv, status: number, expect: string) {
  run(args, env, status, expect); // the file system cache warm, as for a user's second command
  const times = Array.from({ length: RUNS }, () => run(args, env, status, expect));
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-rss-'));
  try {
    const out = join(dir, 'rss');
    const hook = join(dir, 'rss.mjs');
    writeFileSync(
      hook,
      `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(${JSON.stringify(out)}, String(process.resourceUsage().maxRSS)));\n`,
    );
    run(args, { ...env, NODE_OPTIONS: `--import ${hook}` }, status, expect);
    const kb = Number(readFileSync(out, 'utf8'));
    return { ms: Math.round(median(times) * 10) / 10, rssMb: Math.round(kb / 1024) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function cliBench(): Promise<Record<string, number>> {
  buildDist();
  const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-cli-'));
  try {
    Store.open(dataDir).close();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PIPEWATCH_DATA_DIR: dataDir,
      PIPEWATCH_RULES_DIR: join(ROOT, 'rules'),
    };
    const help = measure(['--help'], env, 0, 'Usage: pipewatch');
    // A fresh database has no feed run yet: status reports each as never run, and exits 1.
    const status = measure(['status'], env, 1, 'last success');
    return {
      runs: RUNS,
      help_ms: help.ms,
      status_ms: status.ms,
      help_peak_rss_mb: help.rssMb,
      status_peak_rss_mb: status.rssMb,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
