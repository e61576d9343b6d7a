/**
 * `pipewatch why <notice>`: each rule's decision on a notice and the reason: from the
 * audit trail for what happened (alerts held back by a silence included: "muted by
 * silence 12 until …"), and from the current rules, the subscriptions' with them, for
 * rules that never saw it (the baseline, a notice too old, a rule added later, a
 * subscription made after it, a pipeline or type it cannot match). A subscription is
 * shown with where it came from. The notice is named by its API id or by its pipeline's
 * own identifier (`26-0524`), as every alert shows it.
 */
import { Command } from 'commander';
import type { CliContext } from './context.js';
import { NOTICE_ARGUMENT, type NoticeRef } from './ids.js';

/** Registers `why`; its action loads with the command. */
export function whyCommand(ctx: CliContext): Command {
  return new Command('why')
    .description("each rule's decision on a notice, and why")
    .argument('<notice>', NOTICE_ARGUMENT.description, NOTICE_ARGUMENT.parse)
    .option('--json', 'print the notice, decisions, verdicts and deliveries as JSON')
    .action(async (ref: NoticeRef, opts: { json?: boolean }) =>
      (await import('./why-action.js')).showWhy(ctx, ref, opts),
    );
}
