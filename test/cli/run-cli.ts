/** Runs the pipewatch command line in-process and captures what it prints. */
import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/index.js';
import type { Clock } from '../../src/lib/clock.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

interface CliOptions {
  cwd?: string;
  signal?: AbortSignal;
  clock?: Clock;
}

/** A command still running: its output so far, and its end. */
export interface RunningCli {
  stdout: Capture;
  stderr: Capture;
  done: Promise<CliRun>;
  /** Resolves with the first match of `pattern` in stdout, yielding to the event loop meanwhile. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
}

/** Starts `pipewatch <argv>` with exactly `env` (no `.env` unless `cwd` has one). */
export function startCli(
  argv: string[],
  env: Record<string, string> = {},
  options: CliOptions = {},
): RunningCli {
  const stdout = new Capture();
  const stderr = new Capture();
  let finished = false;
  const done = runCli(argv, {
    stdout,
    stderr,
    env: { LOG_LEVEL: 'warn', ...env },
    cwd: options.cwd ?? '/nonexistent-pipewatch-cwd',
    signal: options.signal ?? new AbortController().signal,
    ...(options.clock ? { clock: options.clock } : {}),
  }).then((code) => {
    finished = true;
    return { code, stdout: stdout.text, stderr: stderr.text };
  });
  const waitFor = async (pattern: RegExp) => {
    for (;;) {
      const match = stdout.text.match(pattern);
      if (match) return match;
      if (finished)
        throw new Error(`command ended without printing ${pattern}:\n${stdout.text}${stderr.text}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { stdout, stderr, done, waitFor };
}

/** Runs `pipewatch <argv>` to its end. */
export function cli(
  argv: string[],
  env: Record<string, string> = {},
  options: CliOptions = {},
): Promise<CliRun> {
  return startCli(argv, env, options).done;
}

/**
 * Yields to the event loop until `done()` holds, for a command running in-process;
 * gives up after 15 s of real time with what the command logged.
 */
export async function until(
  done: () => boolean,
  running: { stderr: { text: string } },
): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`gave up waiting:\n${running.stderr.text}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
