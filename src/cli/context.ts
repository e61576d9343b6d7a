/**
 * What every command gets: where to write, the environment, the working directory, a
 * signal that fires on SIGINT/SIGTERM or once the output is gone, and lazily the parsed
 * configuration and logger. Commands never touch `process` directly, so tests run them
 * in-process.
 */
import { type Config, loadConfig, readEnvironment, secretValues } from '../config/index.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { colourWanted, terminalSafe } from '../lib/terminal.js';
import { OutputGoneError } from './errors.js';

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted when the process is asked to stop. */
  signal: AbortSignal;
  clock?: Clock;
}

/** A command's view of the process. */
export class CliContext {
  private configCache: Config | undefined;
  private loggerCache: Logger | undefined;
  private readonly outputLost = new AbortController();
  private readonly lost = new Map<'stdout' | 'stderr', OutputGoneError>();
  /** Exit status the command asks for. */
  exitCode = 0;
  /**
   * Aborted when the process is asked to stop, and when stdout or stderr can no longer be
   * written (its reader went away, `| head`): a command whose output is gone stops its
   * work rather than carrying on for no one.
   */
  readonly signal: AbortSignal;
  /** Why stdout or stderr can no longer be written, once one cannot (the first to go). */
  get outputGone(): OutputGoneError | undefined {
    return this.lost.values().next().value;
  }

  constructor(readonly io: CliIo) {
    this.signal = AbortSignal.any([io.signal, this.outputLost.signal]);
    // A write that fails emits 'error' on its stream: without a listener, node ends the
    // process with the error's stack. Every command's output, the logger's lines and
    // commander's usage pass through these two streams, so this is the one place.
    for (const [name, stream] of [
      ['stdout', io.stdout],
      ['stderr', io.stderr],
    ] as const) {
      stream.on('error', (error: Error) => this.lose(name, error));
    }
  }

  get clock(): Clock {
    return this.io.clock ?? systemClock;
  }

  /**
   * The configuration, parsed on first use (throws `ConfigError`). Whatever command reads
   * it, a variable that looks like pipewatch's but is not one is warned about here, once.
   */
  get config(): Config {
    if (this.configCache === undefined) {
      const { env, sources } = readEnvironment(this.io.env, this.io.cwd);
      this.configCache = loadConfig(env, this.io.cwd, sources);
      for (const warning of this.configCache.warnings) this.logger.warn(warning);
    }
    return this.configCache;
  }

  get logger(): Logger {
    this.loggerCache ??= createLogger({
      level: this.config.logLevel,
      secrets: secretValues(this.config),
      destination: this.io.stderr,
      colour: colourWanted(this.io.env, this.io.stderr),
    });
    return this.loggerCache;
  }

  /**
   * Writes a line to stdout, without the control characters and bidirectional overrides
   * that upstream text may carry (`terminalSafe`): a notice can neither run an escape
   * sequence on the reader's terminal nor reorder what it shows. Throws `OutputGoneError`
   * once stdout cannot be written, which ends a command printing in a loop where it
   * stands; the command line then ends quietly (`| head`) or says why (a full disk).
   */
  out(line = ''): void {
    const { stdout } = this.io;
    if (!this.lost.has('stdout')) stdout.write(`${terminalSafe(line)}\n`);
    // A pipe whose reader has gone fails the write at once, before its 'error' event.
    const failed = (stdout as { errored?: Error | null }).errored;
    if (failed) this.lose('stdout', failed);
    const gone = this.lost.get('stdout');
    if (gone) throw gone;
  }

  /** Writes a line to stderr, made safe as `out` does; nothing once stderr is gone. */
  err(line: string): void {
    if (!this.lost.has('stderr')) this.io.stderr.write(`${terminalSafe(line)}\n`);
  }

  /** Notes that `stream` can no longer be written and stops the command's work. */
  private lose(stream: 'stdout' | 'stderr', error: Error): void {
    if (this.lost.has(stream)) return;
    this.lost.set(stream, new OutputGoneError(stream, error));
    if (!this.outputLost.signal.aborted) this.outputLost.abort(this.outputGone);
  }
}
