/**
 * What every command gets: where to write, the environment, the working directory, a
 * signal that fires on SIGINT/SIGTERM, and lazily the parsed configuration and logger.
 * Commands never touch `process` directly, so tests run them in-process.
 */
import { type Config, environmentWithDotEnv, loadConfig } from '../config/index.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { createLogger, type Logger } from '../lib/logger.js';

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

  /** The configuration, parsed on first use (throws `ConfigError`). */
  get config(): Config {
    this.configCache ??= loadConfig(environmentWithDotEnv(this.io.env, this.io.cwd), this.io.cwd);
    return this.configCache;
  }

  get logger(): Logger {
    this.loggerCache ??= createLogger({ level: this.config.logLevel, destination: this.io.stderr });
    return this.loggerCache;
  }

  /** Writes a line to stdout. */
  out(line = ''): void {
    this.io.stdout.write(`${line}\n`);
  }

  /** Writes a line to stderr. */
  err(line: string): void {
    this.io.stderr.write(`${line}\n`);
  }
}
