/**
 * `pipewatch simulate`: serves the built-in simulator of the Pipeline Information API,
 * for trying pipewatch (or anything else) against realistic data without an account.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { simulatorDefaults } from '../simulator/options.js';
import type { CliContext } from './context.js';

function integer(min: number, max: number) {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return n;
  };
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('must be a number greater than 0');
  return n;
}

interface SimulateOptions {
  port: number;
  host: string;
  live?: boolean;
  seed: number;
  speed: number;
  noticesPerHour: number;
  refreshEvery: number;
  control?: boolean;
  urlStyle: 'absolute' | 'path';
}

/** Registers `simulate`. */
export function simulateCommand(ctx: CliContext): Command {
  return new Command('simulate')
    .description('serve the API simulator until interrupted')
    .option('--port <n>', 'port to listen on (0: any free port)', integer(0, 65_535), 8787)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--live', 'publish new notices and capacity cycles as time passes')
    .option(
      '--seed <n>',
      'seed of the generated data',
      integer(0, 2 ** 31 - 1),
      simulatorDefaults.seed,
    )
    .option(
      '--speed <x>',
      'with --live, simulated seconds per real second',
      positive,
      simulatorDefaults.speed,
    )
    .option(
      '--notices-per-hour <n>',
      'with --live, mean notice events per simulated hour',
      positive,
      simulatorDefaults.noticesPerHour,
    )
    .option(
      '--refresh-every <seconds>',
      'publish notices in refreshes this many seconds apart, and date the history by them (60: an enterprise account; 0: each notice the instant it happens)',
      integer(0, 86_400),
      simulatorDefaults.refreshEveryMs / 1000,
    )
    .option('--control', 'enable the /_control API (add notices, publish cycles, inject faults)')
    .addOption(
      new Option('--url-style <style>', 'form of the pagination URLs')
        .choices(['absolute', 'path'])
        .default(simulatorDefaults.urlStyle),
    )
    .action(async (opts: SimulateOptions) => {
      const { startSimulator } = await import('../simulator/index.js');
      const sim = await startSimulator({
        port: opts.port,
        host: opts.host,
        live: Boolean(opts.live),
        seed: opts.seed,
        speed: opts.speed,
        noticesPerHour: opts.noticesPerHour,
        refreshEveryMs: opts.refreshEvery * 1000,
        control: Boolean(opts.control),
        urlStyle: opts.urlStyle,
        clock: ctx.clock,
      });
      ctx.out(
        `pipewatch simulator listening on ${sim.url} (API at ${sim.url}/api/v1, seed ${opts.seed}${opts.live ? `, live x${opts.speed}` : ''}${opts.control ? ', control API on' : ''})`,
      );
      for (const user of simulatorDefaults.users) {
        ctx.out(
          `  ${user.plan} account: PIPEWATCH_API_USER=${user.username} PIPEWATCH_API_KEY=${user.key}`,
        );
      }
      ctx.out('Press Ctrl-C to stop.');
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await sim.close();
      ctx.out('simulator stopped');
    });
}
