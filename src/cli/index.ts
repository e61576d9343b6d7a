/**
 * The `pipewatch` command line: parses arguments, runs one command, and turns every
 * failure into a message and an exit status (0 ok, 1 the command failed, 2 bad usage or
 * configuration). Runs in-process with injected streams, environment and signal.
 */

import { Command } from 'commander';
import { ZodError } from 'zod';
import { errorMessage, errorName } from '../lib/error-text.js';
import { VERSION } from '../lib/version.js';
import { apiCommand } from './api.js';
import { chartCommand } from './chart.js';
import { CliContext, type CliIo } from './context.js';
import { demoCommand } from './demo.js';
import { discordCommand } from './discord.js';
import { ExitCode, exitOutcome, failureCode } from './exit-status.js';
import { rulesCommand } from './rules.js';
import { runCommand } from './run.js';
import { sendTestCommand } from './send-test.js';
import { silenceCommand } from './silence.js';
import { simulateCommand } from './simulate.js';
import { statusCommand } from './status.js';
import { storeCommand } from './store.js';
import { subsCommand } from './subs.js';
import { whyCommand } from './why.js';

export { ExitCode } from './exit-status.js';

/** Runs the command line `argv` (without `node` and the script) and returns the exit status. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const ctx = new CliContext(io);
  const program = new Command('pipewatch')
    .description('Alerts on natural-gas pipeline notices and operationally available capacity')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride();
  for (const command of [
    runCommand(ctx),
    statusCommand(ctx),
    sendTestCommand(ctx),
    rulesCommand(ctx),
    whyCommand(ctx),
    chartCommand(ctx),
    subsCommand(ctx),
    silenceCommand(ctx),
    discordCommand(ctx),
    storeCommand(ctx),
    apiCommand(ctx),
    simulateCommand(ctx),
    demoCommand(ctx),
  ]) {
    program.addCommand(command);
  }
  const override = (c: Command) => {
    c.exitOverride().configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
    c.commands.forEach(override);
  };
  program.commands.forEach(override);

  let failure: unknown;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    failure = error;
  }
  // Once stdout or stderr is gone, whatever failure followed came of it (a write that
  // threw, work aborted): the command ends as its output did, quietly for a reader that
  // went away, with what the command had found so far (`run --once`: a failed feed).
  const gone = ctx.outputGone;
  if (gone) {
    const status = report(gone, ctx);
    return status === ExitCode.Ok ? ctx.exitCode : status;
  }
  return failure === undefined ? ctx.exitCode : report(failure, ctx);
}

/** Prints a failure and returns its exit status (see `exit-status.ts`). */
function report(error: unknown, ctx: CliContext): number {
  const known = exitOutcome(failureCode(error));
  if (known) {
    if (!known.quiet) {
      const lines = typeof error === 'object' && error !== null && 'lines' in error && error.lines;
      const said = Array.isArray(lines) ? lines.map(String) : [errorMessage(error)];
      for (const line of said) ctx.err(`pipewatch: ${line}`);
      if (known.hint) ctx.err(`pipewatch: ${known.hint}`);
    }
    return known.status;
  }
  if (ctx.signal.aborted && errorName(error) === 'AbortError') return ExitCode.Ok;
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    ctx.err(`pipewatch: invalid data: ${where}${issue?.message ?? 'does not match its schema'}`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    ctx.err(`pipewatch: ${message.replace(/\s*\n\s*/g, ' ')}`);
  }
  if (error instanceof Error && error.stack && debugging(ctx)) ctx.err(error.stack);
  return ExitCode.Failed;
}

/** Whether LOG_LEVEL asks for detail (debug or trace): then a failure's stack is printed too. */
function debugging(ctx: CliContext): boolean {
  let level: string | undefined;
  try {
    level = ctx.config.logLevel;
  } catch {
    level = ctx.io.env.LOG_LEVEL;
  }
  return level === 'debug' || level === 'trace';
}
