/**
 * `pipewatch subs list|add|rm|export`: the subscriptions stored in the database (made from
 * chat, or the command line) seen and managed from the host. A change here bumps the
 * subscriptions' revision, so a daemon running on the same database puts it in force
 * before its next decision.
 */
import { Command, InvalidArgumentError } from 'commander';
import { parseTarget, type Target } from '../domain/targets.js';
import { errorMessage } from '../lib/error-text.js';
import type { CliContext } from './context.js';
import { parseId } from './ids.js';

/** The target argument, refused with the target parser's own words. */
function targetArgument(text: string): Target {
  try {
    return parseTarget(text);
  } catch (error) {
    throw new InvalidArgumentError(errorMessage(error));
  }
}

function subscriptionId(text: string): number {
  const id = parseId(text, 'sub');
  if (id === undefined) throw new InvalidArgumentError('must be a subscription id (12, or sub-12)');
  return id;
}

/** Registers `subs` and its subcommands; their actions load with the command. */
export function subsCommand(ctx: CliContext): Command {
  const subs = new Command('subs').description(
    'subscriptions made from chat or the command line, stored in the database',
  );
  subs
    .command('list')
    .description('every subscription: what it matches, where it sends, where it came from')
    .option('--json', 'print them as JSON')
    .action(async (opts: { json?: boolean }) =>
      (await import('./subs-action.js')).listSubscriptions(ctx, opts),
    );
  subs
    .command('add')
    .description(
      'make a subscription with the words chat takes: subs add slack:#gas subscribe transco type:constraint',
    )
    .argument('<target>', 'where it sends: slack:#gas, slack_dm:U…, email:a@b.c …', targetArgument)
    .argument('<words...>', 'subscribe …, remind … or oac …, as after /pipewatch in chat')
    .action(async (target: Target, words: string[]) =>
      (await import('./subs-add.js')).addSubscription(ctx, target, words),
    );
  subs
    .command('rm')
    .description('remove a subscription; a running daemon stops judging it at once')
    .argument('<id>', 'the subscription id (12, or sub-12)', subscriptionId)
    .action(async (id: number) => (await import('./subs-action.js')).removeSubscription(ctx, id));
  subs
    .command('export')
    .description(
      "print every subscription as one rule file ('pipewatch rules validate' accepts it)",
    )
    .action(async () => (await import('./subs-action.js')).exportSubscriptions(ctx));
  return subs;
}
