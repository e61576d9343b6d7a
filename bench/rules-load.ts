/**
 * What a daemon start pays to put 10,000 rules from rule files in force: reading and
 * validating every file (`loadRules`), checking each pipeline slug against the list and
 * compiling the rules for matching, as `pipewatch run` does. The rules are written as
 * people write them (`rule-files.ts`: ten files of 1,000), and each measure is a fresh
 * process of the built code (`npm run build`, then `node` on `dist/` with the options the
 * executable's first line gives it, as users run it), so that its peak resident memory is
 * its own: the modules a daemon loads anyway, and
 * the rules. Figures: the median milliseconds of `RUNS` processes from the first read to
 * compiled rules (loading modules not included), and the highest peak (VmHWM), in MB;
 * the `node_` figures are the same without the executable's options.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDist, executableNodeOptions, ROOT } from './built.js';
import { writeRuleFiles } from './rule-files.js';

const RUNS = 5;

/** The child: loads the rules from `argv[1]` with the built modules, prints ms and peak MB. */
const CHILD = `
import { readFileSync } from 'node:fs';
const dist = process.argv[2];
const { loadRules } = await import(dist + '/rules/loader.js');
const { compileRules } = await import(dist + '/alerts/rules.js');
const { unknownPipelines } = await import(dist + '/rules/pipeline-check.js');
const { PIPELINES } = await import(dist + '/simulator/pipelines.js');
const started = performance.now();
const loaded = loadRules(process.argv[1]);
const unknown = unknownPipelines(loaded.rules, PIPELINES.map((p) => p.slug));
const compiled = compileRules(loaded.rules);
const ms = performance.now() - started;
const kb = Number(/VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? process.resourceUsage().maxRSS);
console.log(JSON.stringify({ ms, peak_mb: kb / 1024, rules: compiled.all.length, problems: loaded.problems.length + unknown.length }));
`;

/** One fresh process loading the rules of `dir`, node started with `options`. */
function once(dir: string, options: string[]): { ms: number; peak_mb: number } {
  const child = spawnSync(
    process.execPath,
    [...options, '--input-type=module', '-e', CHILD, dir, join(ROOT, 'dist')],
    { encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(`rule loading exited ${child.status}:\n${child.stderr}`);
  const out = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
  if (out.rules !== 10_000 || out.problems !== 0)
    throw new Error(`expected 10000 rules and no problems, got ${child.stdout}`);
  return out;
}

/**
 * `load_ms_10000` and `load_peak_rss_mb_10000`, node started as the executable starts it;
 * `node_load_ms_10000` and `node_load_peak_rss_mb_10000`, plain node (`node dist/main.js`).
 */
export function rulesLoadFigures(): Record<string, number> {
  buildDist();
  const dir = writeRuleFiles(mkdtempSync(join(tmpdir(), 'pipewatch-rules-')), 10_000, 10);
  const figures = (options: string[]) => {
    const runs = Array.from({ length: RUNS }, () => once(dir, options));
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
    return {
      ms: Math.round(ms[Math.floor(RUNS / 2)]!),
      peak: Math.round(Math.max(...runs.map((r) => r.peak_mb))),
    };
  };
  try {
    const executable = figures(executableNodeOptions());
    const node = figures([]);
    return {
      load_ms_10000: executable.ms,
      load_peak_rss_mb_10000: executable.peak,
      node_load_ms_10000: node.ms,
      node_load_peak_rss_mb_10000: node.peak,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(rulesLoadFigures());
