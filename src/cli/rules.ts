/**
 * `pipewatch rules`: work on the rule files without running the daemon. `validate` checks
 * them the way the daemon will, and prints every problem as `file:line:col: message` so
 * that editors and CI can point at it.
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { loadRules } from '../rules/loader.js';
import { formatProblem } from '../rules/types.js';
import type { CliContext } from './context.js';
import { addRulesTestCommand } from './rules-test.js';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `rules validate [DIR]`: exit 0 with a summary, or 1 with each problem and their count. */
function validateCommand(ctx: CliContext): Command {
  return new Command('validate')
    .description('validate the rule files; exit 1 with file:line:col: message lines when invalid')
    .argument('[dir]', 'rules directory (default: PIPEWATCH_RULES_DIR)')
    .action((dir: string | undefined) => {
      const target = dir === undefined ? ctx.config.rulesDir : resolve(ctx.io.cwd, dir);
      const loaded = loadRules(target, { cwd: ctx.io.cwd });
      if (loaded.problems.length > 0) {
        for (const p of loaded.problems) ctx.out(formatProblem(p));
        ctx.out(plural(loaded.problems.length, 'problem'));
        ctx.exitCode = 1;
        return;
      }
      const count = (kind: string) => loaded.rules.filter((r) => r.kind === kind).length;
      ctx.out(
        `rules: ${plural(loaded.rules.length, 'rule')} in ${plural(loaded.files.length, 'file')} ` +
          `(${count('notices')} notices, ${count('deadlines')} deadlines, ${count('capacity')} capacity)`,
      );
      ctx.exitCode = 0;
    });
}

/** Registers `rules` and its subcommands. */
export function rulesCommand(ctx: CliContext): Command {
  const rules = new Command('rules').description('check and try out the rule files');
  rules.addCommand(validateCommand(ctx));
  addRulesTestCommand(rules, ctx);
  return rules;
}
