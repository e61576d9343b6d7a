/**
 * `pipewatch why <notice-id>`: each rule's decision on a notice and the reason: from the
 * audit trail for what happened (alerts held back by a silence included: "muted by
 * silence 12 until …"), and from the current rules, the subscriptions' with them, for
 * rules that never saw it (the baseline, a notice too old, a rule added later, a
 * subscription made after it, a pipeline or type it cannot match). A subscription is
 * shown with where it came from.
 */
import { Command, InvalidArgumentError } from 'commander';
import type { CliContext } from './context.js';

/** Registers `why`; its action loads with the command. */
export function whyCommand(ctx: CliContext): Command {
  return new Command('why')
    .description("each rule's decision on a notice, and why")
    .argument('<notice-id>', 'the notice id', (v) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('must be a notice id (a whole number)');
      return Number(v);
    })
    .option('--json', 'print the notice, decisions, verdicts and deliveries as JSON')
    .action(async (id: number, opts: { json?: boolean }) =>
      (await import('./why-action.js')).showWhy(ctx, id, opts),
    );
}
