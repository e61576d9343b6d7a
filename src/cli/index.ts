/**
 * The `pipewatch` command line: parses arguments, runs one command, and turns every
 * failure into a message and an exit status (0 ok, 1 the command failed, 2 bad usage or
 * configuration). Runs in-process with injected streams, environment and signal.
 */
import { Command, CommanderError } from 'commander';
import { ZodError } from 'zod';
import { ConfigError } from '../config/index.js';
import { VERSION } from '../lib/version.js';
import { DatabaseError } from '../store/index.js';
import { AuthenticationError, UpstreamError } from '../upstream/errors.js';
import { apiCommand } from './api.js';
import { CliContext, type CliIo } from './context.js';
import { RulesInvalidError } from './daemon.js';
import { demoCommand } from './demo.js';
import { BadInputError } from './errors.js';
import { rulesCommand } from './rules.js';
import { runCommand } from './run.js';
import { sendTestCommand } from './send-test.js';
import { simulateCommand } from './simulate.js';
import { statusCommand } from './status.js';
import { whyCommand } from './why.js';

/** Exit statuses. */
export const ExitCode = { Ok: 0, Failed: 1, Usage: 2 } as const;

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

  try {
    await program.parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    return report(error, ctx);
  }
}

function report(error: unknown, ctx: CliContext): number {
  if (error instanceof CommanderError) {
    return ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(error.code)
      ? ExitCode.Ok
      : ExitCode.Usage;
  }
  if (error instanceof ConfigError) {
    for (const line of error.lines) ctx.err(`pipewatch: ${line}`);
    return ExitCode.Usage;
  }
  if (error instanceof RulesInvalidError) {
    ctx.err(`pipewatch: ${error.message}`);
    return ExitCode.Usage;
  }
  if (error instanceof DatabaseError) {
    ctx.err(`pipewatch: ${error.message}`);
    return ExitCode.Failed;
  }
  if (error instanceof AuthenticationError) {
    ctx.err(`pipewatch: ${error.message}`);
    ctx.err('pipewatch: check PIPEWATCH_API_USER and PIPEWATCH_API_KEY');
    return ExitCode.Failed;
  }
  if (error instanceof UpstreamError) {
    ctx.err(`pipewatch: ${error.message}`);
    return ExitCode.Failed;
  }
  if (error instanceof BadInputError) {
    for (const line of error.lines) ctx.err(`pipewatch: ${line}`);
    return ExitCode.Usage;
  }
  if (ctx.signal.aborted && (error as { name?: string })?.name === 'AbortError') return ExitCode.Ok;
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
