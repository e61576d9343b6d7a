/**
 * What every command gets: where to write, the environment, the working directory, a
 * signal that fires on SIGINT/SIGTERM, and lazily the parsed configuration and logger.
 * Commands never touch `process` directly, so tests run them in-process.
 */
import { type Config, loadConfig, readEnvironment, secretValues } from '../config/index.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { colourWanted, terminalSafe } from '../lib/terminal.js';

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
  /** Exit status the command asks for. */
  exitCode = 0;

  constructor(readonly io: CliIo) {}

  get clock(): Clock {
    return this.io.clock ?? systemClock;
  }

  get signal(): AbortSignal {
    return this.io.signal;
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
   * sequence on the reader's terminal nor reorder what it shows.
   */
  out(line = ''): void {
    this.io.stdout.write(`${terminalSafe(line)}\n`);
  }

  /** Writes a line to stderr, made safe as `out` does. */
  err(line: string): void {
    this.io.stderr.write(`${terminalSafe(line)}\n`);
  }
}
