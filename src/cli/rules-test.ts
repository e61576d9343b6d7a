/**
 * `pipewatch rules test`: a dry run of the rules (the rule files' and the subscriptions
 * stored in the database, each shown with where it came from) over stored notices (or
 * one notice, or notices in a JSON file) and the latest stored capacity, saying for each
 * rule what the daemon would do: fire, remind later, nothing because it already alerted,
 * because the notice came with the baseline or is too old, because a subscription did
 * not exist yet, or why the rule does not match. Sends nothing and writes nothing
 * (`--render` writes emails' HTML parts to files).
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { parseDuration } from '../lib/duration.js';
import type { CliContext } from './context.js';
import { NOTICE_ARGUMENT } from './ids.js';
import type { TestOptions } from './rules-test-run.js';

/** Adds `test` to the `rules` command. */
export function addRulesTestCommand(rules: Command, ctx: CliContext): Command {
  let sinceText = '7d';
  return rules
    .command('test')
    .description(
      'dry run: what the daemon would do with stored notices and capacity under the rules; sends nothing',
    )
    .addOption(
      new Option('--notice <notice>', `only this stored notice: ${NOTICE_ARGUMENT.description}`)
        .argParser(NOTICE_ARGUMENT.parse)
        .conflicts('file'),
    )
    .addOption(
      new Option('--since <duration>', 'notices posted within this long')
        .argParser((v) => {
          const ms = parseDuration(v);
          if (ms === undefined)
            throw new InvalidArgumentError('must be a duration such as 7d or 12h');
          sinceText = v;
          return ms;
        })
        // The help shows the default as it is typed, not in milliseconds.
        .default(parseDuration(sinceText), sinceText),
    )
    .option(
      '--file <file.json>',
      "notices in the API's JSON form (one, a list, or a response), judged as new",
    )
    .option('--json', 'print verdicts and the summary as JSON')
    .option('--render', 'print exactly what each firing verdict would send, per target')
    .option(
      '--render-dir <dir>',
      "where --render writes emails' HTML parts (default: a new directory under the OS temp dir)",
    )
    .action(async (opts: TestOptions) => {
      opts.sinceText = sinceText;
      await (await import('./rules-test-run.js')).runRulesTest(ctx, opts);
    });
}
