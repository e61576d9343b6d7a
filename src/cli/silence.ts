/**
 * `pipewatch silence add|list|extend|expire`: silences from the command line, as amtool makes
 * them for Alertmanager. A silence holds back, for a while, the alerts its matchers
 * match; the daemon reads the silences in force at each decision, so one added or
 * lifted here takes effect at once, even while the daemon runs on the same database.
 * When a silence ends the daemon sums up to each target what it held back.
 */

import { Command, InvalidArgumentError, Option } from 'commander';
import { formatDuration, parseDuration } from '../lib/duration.js';
import { parseZonedInstant } from '../lib/time.js';
import type { CliContext } from './context.js';
import { parseId } from './ids.js';
import type { SilenceAddOptions } from './silence-action.js';
import { MAX_SILENCE_MS, RECENTLY_ENDED_MS } from './silence-window.js';

function silenceDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new InvalidArgumentError(
      `'${text}' is not a duration (a number and a unit: m, h or d, such as 4h)`,
    );
  if (ms <= 0) throw new InvalidArgumentError('must be longer than 0s');
  if (ms > MAX_SILENCE_MS)
    throw new InvalidArgumentError(
      `${formatDuration(ms)} is longer than ${formatDuration(MAX_SILENCE_MS)}, the longest silence; remove the rule or subscription instead`,
    );
  return ms;
}

function silenceInstant(text: string): Date {
  const at = parseZonedInstant(text);
  if (at === undefined)
    throw new InvalidArgumentError(
      `'${text}' is not an instant with its zone (such as 2026-12-01T09:00-06:00 or 2026-12-01T15:00Z)`,
    );
  return at;
}

function silenceId(text: string): number {
  const id = parseId(text);
  if (id === undefined) throw new InvalidArgumentError('must be a silence id (a whole number)');
  return id;
}

/** Registers `silence` and its subcommands; their actions load with the command. */
export function silenceCommand(ctx: CliContext): Command {
  const silence = new Command('silence').description(
    'hold back matching alerts for a while, as amtool does',
  );
  silence
    .command('add')
    .description(
      'silence alerts matching every matcher (pipeline=transco type!~"planned.*" target=slack:#gas; = twice on a key: either value)',
    )
    .argument(
      '[matchers...]',
      'key=value, key!=value, key=~regex, key!~regex: pipeline, target, rule, type, category, status',
    )
    .addOption(
      new Option('--for <duration>', 'how long, at most 90d (default 1h)')
        .argParser(silenceDuration)
        .conflicts('end'),
    )
    .addOption(
      new Option(
        '--start <instant>',
        'from when, with its zone (2026-12-01T09:00-06:00); default now',
      ).argParser(silenceInstant),
    )
    .addOption(
      new Option('--end <instant>', 'until when, with its zone, instead of --for').argParser(
        silenceInstant,
      ),
    )
    .option('--comment <text>', 'why, shown by silence list')
    .option('--everything', 'with no matchers: hold back every alert')
    .action(async (words: string[], opts: SilenceAddOptions) =>
      (await import('./silence-action.js')).addSilence(ctx, words, opts),
    );
  silence
    .command('list')
    .description(
      `silences in force and those ended in the last ${formatDuration(RECENTLY_ENDED_MS)}, with what each held back`,
    )
    .option('--all', 'every silence ever made')
    .option('--json', 'print them as JSON')
    .action(async (opts: { json?: boolean; all?: boolean }) =>
      (await import('./silence-action.js')).listSilences(ctx, opts),
    );
  silence
    .command('extend')
    .description(
      'give a silence in force or pending a new end: --for from its start, as amtool silence update --duration, or --end',
    )
    .argument('<id>', 'the silence id', silenceId)
    .addOption(
      new Option('--for <duration>', 'how long from its start, at most 90d')
        .argParser(silenceDuration)
        .conflicts('end'),
    )
    .addOption(new Option('--end <instant>', 'until when, with its zone').argParser(silenceInstant))
    .action(async (id: number, opts: { for?: number; end?: Date }) =>
      (await import('./silence-action.js')).extendSilence(ctx, id, opts),
    );
  silence
    .command('expire')
    .description('lift a silence now; the daemon sums up what it held back')
    .argument('<id>', 'the silence id', silenceId)
    .action(async (id: number) => (await import('./silence-action.js')).expireSilence(ctx, id));
  return silence;
}
