/**
 * `pipewatch chart <pipeline> <location>`: the OAC chart a capacity alert carries, drawn
 * from the stored cycles of the last gas days, to a PNG file (or to stdout when it is
 * not a terminal). The drawing loads with the command.
 */
import { Command, InvalidArgumentError } from 'commander';
import type { ChartOptions } from './chart-levels.js';
import type { CliContext } from './context.js';

/** Longest history `--days` takes: a year; the chart thins it to a few hundred points. */
export const MAX_CHART_DAYS = 366;

function days(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_CHART_DAYS)
    throw new InvalidArgumentError(`expected a whole number of days from 1 to ${MAX_CHART_DAYS}`);
  return n;
}

function level(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n))
    throw new InvalidArgumentError('expected a number');
  return n;
}

/** Registers `chart`; its action loads with the command. */
export function chartCommand(ctx: CliContext): Command {
  return new Command('chart')
    .description("a location's OAC over the last gas days, as a PNG")
    .argument('<pipeline>', 'the pipeline slug (transco)')
    .argument('<location>', 'the location identifier or name, as alerts show it')
    .option('--days <n>', 'gas days to show, up to the latest stored', days, 7)
    .option('-o, --output <file>', 'write the PNG to this file (default: stdout, not a terminal)')
    .option('--threshold <n>', 'draw a threshold line at this level', level)
    .option('--clear <n>', 'draw a clear line at this level', level)
    .option('--percent', 'show OAC as a percentage of OPC, as a percentage rule compares it')
    .addHelpText(
      'after',
      [
        '',
        'Lines: without --threshold and --clear, the chart draws the threshold and clear',
        'level (and unit) of the first capacity rule in PIPEWATCH_RULES_DIR whose locations',
        'name the location, and says on stderr which rule; with either, only those given.',
      ].join('\n'),
    )
    .action(async (pipeline: string, location: string, opts: ChartOptions) =>
      (await import('./chart-action.js')).writeChart(ctx, pipeline, location, opts),
    );
}
