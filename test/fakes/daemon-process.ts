/**
 * `pipewatch run` as an operator starts it: a process of its own, from the sources, in an
 * empty working directory (no `.env` to pick up) with exactly the environment given. Its
 * stderr, one JSON object a line when piped, tells the HTTP address it bound and every
 * delivery it made; waits re-check their condition on each line it writes, so they end
 * as soon as what they wait for has happened, or fail after their bound with what the
 * daemon said.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/**
 * Bounds for pipewatch run as a process, which only a hang may reach. A start under tsx
 * is seconds of CPU, ten times that on a busy machine (over 30 s to listen, measured with
 * two cores running eight busy processes), and each wait here ends on what the process
 * says or does, never on time: `STEP_HANG_MS` bounds one wait, `STORY_HANG_MS` a test
 * that starts processes one after another.
 */
export const STEP_HANG_MS = 120_000;
export const STORY_HANG_MS = 300_000;

/** One log line of the daemon, as pino wrote it. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** How the process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running daemon. */
export interface DaemonProcess {
  /** Its process id. */
  pid: number;
  /** The base URL of `/healthz`, `/status` and `/metrics`, once it listens. */
  http: Promise<string>;
  /** Every log line so far. */
  logs(): LogLine[];
  /** Everything it printed on stderr, as it printed it. */
  stderr(): string;
  /**
   * Resolves once `done()` holds, checked now and after each line the daemon writes;
   * rejects after `withinMs` (or when the process ends first) naming `what`, or with the
   * reason of `signal` once it aborts (a wait on several processes, one of them done).
   */
  until(what: string, done: () => boolean, withinMs: number, signal?: AbortSignal): Promise<void>;
  /** Sends `signal` (SIGTERM unless told) and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
  /** Sends `signal` if it still runs, waiting for nothing (SIGSTOP, SIGCONT). */
  signal(signal: NodeJS.Signals): void;
  /** How it ended, once it has; undefined while it runs. */
  exit(): Exit | undefined;
  /** Ends it at once if it still runs; for clean-up after a failed test. */
  kill(): void;
}

/** The built program (`npm run build`), as users run it. */
export const BUILT_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Fails when `dist/` is missing or older than a source file: a test would run code that is gone. */
export async function assertBuilt(): Promise<void> {
  const src = fileURLToPath(new URL('../../src', import.meta.url));
  if (!existsSync(BUILT_MAIN)) throw new Error('dist/main.js is missing: run `npm run build`');
  const built = statSync(BUILT_MAIN).mtimeMs;
  for (const entry of await readdir(src, { recursive: true })) {
    const path = join(src, entry);
    if (path.endsWith('.ts') && (await stat(path)).mtimeMs > built)
      throw new Error(`${entry} is newer than dist/main.js: run \`npm run build\``);
  }
}

/**
 * Which pipewatch a process runs: `sources` is `src/main.ts` under tsx, as the tests start
 * it; `executable` is the built `dist/main.js` started by its first line, with the V8
 * settings there, as `npx pipewatch` and the Docker image start it; `node` is
 * `node dist/main.js`, the built program without them.
 */
export type Program = 'sources' | 'executable' | 'node';

/** The command and arguments that start `program` with `args`. */
export function programCommand(program: Program, args: string[]): [string, string[]] {
  switch (program) {
    case 'executable':
      return [BUILT_MAIN, args];
    case 'node':
      return [process.execPath, [BUILT_MAIN, ...args]];
    case 'sources':
      // tsx by its full address: the working directory has no node_modules to find it in.
      return [process.execPath, ['--import', import.meta.resolve('tsx'), MAIN, ...args]];
  }
}

/**
 * libfaketime's variables, when the tests run under it, so the daemon keeps the tests'
 * clock: `DONT_FAKE_MONOTONIC=1 faketime -f +3600s npx vitest run test/cli/acceptance.test.ts`
 * plays a test that runs on the real clock an hour from now (docs/development.md).
 */
function fakeTime(): Record<string, string> {
  const { FAKETIME, LD_PRELOAD } = process.env;
  if (!FAKETIME || !LD_PRELOAD) return {};
  return { FAKETIME, LD_PRELOAD, DONT_FAKE_MONOTONIC: '1' };
}

/**
 * Starts `pipewatch run` with `env` (PATH and HOME are added) and an HTTP port of its
 * choosing, from the sources unless told which `program` (the benchmarks measure what
 * users run).
 */
export function startDaemon(
  env: Record<string, string>,
  options: { program?: Program } = {},
): DaemonProcess {
  const cwd = mkdtempSync(join(tmpdir(), 'pipewatch-daemon-'));
  const child: ChildProcess = spawn(...programCommand(options.program ?? 'sources', ['run']), {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? cwd,
      ...fakeTime(),
      PIPEWATCH_HTTP_PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let partial = '';
  const lines: LogLine[] = [];
  const watchers = new Set<() => void>();
  let exit: Exit | undefined;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      for (const check of [...watchers]) check();
      resolve(exit);
    }),
  );
  const notify = () => {
    for (const check of [...watchers]) check();
  };
  child.stderr!.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    err += text;
    partial += text;
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) {
      try {
        lines.push(JSON.parse(line) as LogLine);
      } catch {
        lines.push({ level: 0, msg: line });
      }
    }
    notify();
  });
  child.stdout!.on('data', notify);

  const until = (what: string, done: () => boolean, withinMs: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const aborted = () => finish(signal?.reason as Error);
      const finish = (error?: Error) => {
        clearTimeout(timer);
        watchers.delete(check);
        signal?.removeEventListener('abort', aborted);
        if (error) reject(error);
        else resolve();
      };
      const failure = (why: string) =>
        new Error(`${why} waiting for ${what}; the daemon said:\n${err.slice(-4000)}`);
      const check = () => {
        try {
          if (done()) finish();
          else if (exit) finish(failure(`the daemon exited (${exit.code ?? exit.signal})`));
        } catch (error) {
          finish(error as Error);
        }
      };
      const timer = setTimeout(() => finish(failure(`gave up after ${withinMs} ms`)), withinMs);
      if (signal?.aborted) return aborted();
      signal?.addEventListener('abort', aborted, { once: true });
      watchers.add(check);
      check();
    });

  const http = (async () => {
    let url: string | undefined;
    await until(
      'the HTTP address',
      () => {
        url = lines.find((l) => typeof l.http === 'string' && l.msg.startsWith('pipewatch running'))
          ?.http as string | undefined;
        return url !== undefined;
      },
      STEP_HANG_MS,
    );
    return url!;
  })();
  http.catch(() => {});

  return {
    pid: child.pid!,
    http,
    logs: () => lines,
    stderr: () => err,
    until,
    stop: (signal = 'SIGTERM') => {
      if (!exit) child.kill(signal);
      return exited;
    },
    signal: (signal) => {
      if (!exit) child.kill(signal);
    },
    exit: () => exit,
    kill: () => {
      if (!exit) child.kill('SIGKILL');
    },
  };
}

/**
 * One sample of Prometheus text by name and labels (the ones given must match; others may
 * be there); 0 when absent, as Prometheus reads a counter not yet incremented.
 */
export function metricSample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found = new Map([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => found.get(k) === v)) return Number(m[3]);
  }
  return 0;
}
