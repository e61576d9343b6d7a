/**
 * What every command gets: where to write, the environment, the working directory, a
 * signal that fires on SIGINT/SIGTERM, and lazily the parsed configuration and logger.
 * Commands never touch `process` directly, so tests run them in-process.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, loadConfig, readEnvironment, secretValues } from '../config/index.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { colourWanted, terminalSafe } from '../lib/terminal.js';
import { DATABASE_FILE, Store } from '../store/index.js';

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

/**
 * Opens the configured database for a command that reads what `run` stored; when there
 * is none, says so, sets exit status 1 and returns undefined (rather than creating one).
 */
export function openExistingStore(ctx: CliContext): Store | undefined {
  const file = join(ctx.config.dataDir, DATABASE_FILE);
  if (!existsSync(file)) {
    ctx.err(
      `pipewatch: no database at ${file}; run 'pipewatch run' first (or set PIPEWATCH_DATA_DIR)`,
    );
    ctx.exitCode = 1;
    return undefined;
  }
  return Store.open(ctx.config.dataDir);
}
