/**
 * What `rules validate` does once it runs: loads the rule files as the daemon will, and
 * checks their pipeline slugs against the stored list. Apart from the command's
 * definition, so `--help` loads none of it.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../config/index.js';
import { counted } from '../lib/words.js';
import { loadRules } from '../rules/loader.js';
import { unknownPipelines } from '../rules/pipeline-check.js';
import { formatProblem, type Rule, type RuleProblem } from '../rules/types.js';
import { DATABASE_FILE, Store } from '../store/index.js';
import type { CliContext } from './context.js';
import { toJson } from './format.js';

/** Why pipeline slugs could not be checked against the API's list; undefined when they were. */
type SlugCheck = { problems: RuleProblem[]; unchecked?: string };

/**
 * The rules' pipeline slugs that the API does not track, when the pipeline list is
 * stored (a database at PIPEWATCH_DATA_DIR that `run` has filled); otherwise why not.
 */
function checkSlugs(ctx: CliContext, rules: readonly Rule[]): SlugCheck {
  const hint = "run 'pipewatch run' once to store the API's pipeline list";
  let dataDir: string;
  try {
    dataDir = ctx.config.dataDir;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { problems: [], unchecked: `the configuration is invalid (${error.lines[0]})` };
  }
  if (!existsSync(join(dataDir, DATABASE_FILE)))
    return { problems: [], unchecked: `no database at ${dataDir}; ${hint}` };
  const store = Store.openReadonly(dataDir);
  try {
    const tracked = store.pipelines.all().map((p) => p.slug);
    if (tracked.length === 0)
      return { problems: [], unchecked: `no pipeline list stored yet; ${hint}` };
    return { problems: unknownPipelines(rules, tracked) };
  } finally {
    store.close();
  }
}

const byPosition = (a: RuleProblem, b: RuleProblem) =>
  a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col;

/** Prints the rule files' problems (exit status 1), or a summary of the rules they hold. */
export function validateRules(
  ctx: CliContext,
  dir: string | undefined,
  opts: { json?: boolean },
): void {
  const target = dir === undefined ? ctx.config.rulesDir : resolve(ctx.io.cwd, dir);
  const loaded = loadRules(target, { cwd: ctx.io.cwd });
  const slugs = checkSlugs(ctx, loaded.rules);
  const problems = [...loaded.problems, ...slugs.problems.toSorted(byPosition)];
  const unchecked = slugs.unchecked
    ? `pipeline slugs were not checked against the API: ${slugs.unchecked}`
    : undefined;
  ctx.exitCode = problems.length > 0 ? 1 : 0;
  const count = (kind: string) => loaded.rules.filter((r) => r.kind === kind).length;
  if (opts.json) {
    const common = { pipelines_checked: !slugs.unchecked, pipelines_note: unchecked ?? null };
    ctx.out(
      toJson(
        problems.length > 0
          ? {
              valid: false,
              problems: problems.map((p) => ({
                file: p.file,
                line: p.line,
                col: p.col,
                message: p.message,
              })),
              ...common,
            }
          : {
              valid: true,
              rules: loaded.rules.length,
              files: loaded.files.length,
              notices: count('notices'),
              deadlines: count('deadlines'),
              capacity: count('capacity'),
              ...common,
            },
      ),
    );
    return;
  }
  if (problems.length > 0) {
    for (const p of problems) ctx.out(formatProblem(p));
    ctx.out(counted(problems.length, 'problem'));
  } else {
    ctx.out(
      `rules: ${counted(loaded.rules.length, 'rule')} in ${counted(loaded.files.length, 'file')} ` +
        `(${counted(count('notices'), 'notice rule')}, ${counted(count('deadlines'), 'deadline rule')}, ${counted(count('capacity'), 'capacity rule')})`,
    );
  }
  if (unchecked) ctx.err(`pipewatch: ${unchecked}`);
}
