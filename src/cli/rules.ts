/**
 * `pipewatch rules`: work on the rule files without running the daemon. `validate` checks
 * them the way the daemon will, and prints every problem as `file:line:col: message` so
 * that editors and CI can point at it.
 */
import { Command } from 'commander';
import type { CliContext } from './context.js';
import { addRulesTestCommand } from './rules-test.js';

/**
 * `rules validate [DIR]`: exit 0 with a summary, or 1 with each problem and their count;
 * pipeline slugs the API does not track are problems too, once its list is stored.
 */
function validateCommand(ctx: CliContext): Command {
  return new Command('validate')
    .description('validate the rule files; exit 1 with file:line:col: message lines when invalid')
    .argument('[dir]', 'rules directory (default: PIPEWATCH_RULES_DIR)')
    .option('--json', 'print the summary, or the problems, as JSON')
    .action(async (dir: string | undefined, opts: { json?: boolean }) =>
      (await import('./rules-validate.js')).validateRules(ctx, dir, opts),
    );
}

/** Registers `rules` and its subcommands. */
export function rulesCommand(ctx: CliContext): Command {
  const rules = new Command('rules').description('check and try out the rule files');
  rules.addCommand(validateCommand(ctx));
  addRulesTestCommand(rules, ctx);
  return rules;
}
