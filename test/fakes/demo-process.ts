/**
 * `pipewatch demo` as a user starts it: a process of its own in a fresh, empty folder (the
 * example rules come with pipewatch, not from the folder), watched for the three stories
 * pipewatch exists for. Used by the demo test and the demo benchmark.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The three stories, as the first line of the alert block each prints. */
export const STORIES = {
  channel: /^ALERT transco-constraints → slack:#gas-constraints\b/m,
  reminder: /^ALERT response-reminders → slack_dm:scheduler@example\.com\b/m,
  email: /^ALERT transco-low-oac → email:scheduling@example\.com\b/m,
} as const;

export type Story = keyof typeof STORIES;

/** A running demo. */
export interface DemoProcess {
  /** Everything it printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Milliseconds from the banner to each story's first alert, once all three came. */
  stories: Promise<Record<Story, number>>;
  /** Resolves once stdout matches `pattern`; rejects if the demo exits first. */
  printed(pattern: RegExp): Promise<void>;
  /** SIGINT, as Ctrl-C; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the demo from the sources (`node --import tsx src/main.ts demo [args]`), or with
 * `executable` (an installed `pipewatch`, started by its first line) that program.
 */
export function startDemo(
  env: NodeJS.ProcessEnv = {},
  args: string[] = [],
  executable?: string,
): DemoProcess {
  const cwd = mkdtempSync(join(tmpdir(), 'pipewatch-demo-'));
  const [command, commandArgs]: [string, string[]] = executable
    ? [executable, ['demo', ...args]]
    : // tsx by its full address: the demo's folder has no node_modules to find it in.
      [
        process.execPath,
        ['--import', import.meta.resolve('tsx'), join(ROOT, 'src', 'main.ts'), 'demo', ...args],
      ];
  const child: ChildProcess = spawn(command, commandArgs, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let bannerAt: number | undefined;
  /** Checks of `printed`, run on each chunk of stdout. */
  const watchers = new Set<() => void>();
  const seen: Partial<Record<Story, number>> = {};
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const stories = new Promise<Record<Story, number>>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      for (const check of [...watchers]) check();
      const now = performance.now();
      if (bannerAt === undefined && /^pipewatch demo: /m.test(out)) bannerAt = now;
      if (bannerAt === undefined) return;
      for (const [story, pattern] of Object.entries(STORIES) as Array<[Story, RegExp]>)
        if (seen[story] === undefined && pattern.test(out)) seen[story] = now - bannerAt;
      if (Object.keys(seen).length === Object.keys(STORIES).length)
        resolve(seen as Record<Story, number>);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    void exited.then((code) =>
      reject(new Error(`the demo exited (${code}) before all three stories:\n${out}\n${err}`)),
    );
  });
  stories.catch(() => {});
  const printed = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(out)) return;
        watchers.delete(check);
        resolve();
      };
      watchers.add(check);
      void exited.then((code) => {
        if (!watchers.delete(check)) return;
        reject(new Error(`the demo exited (${code}) before printing ${pattern}:\n${out}\n${err}`));
      });
      check();
    });
  return {
    stdout: () => out,
    stderr: () => err,
    stories,
    printed,
    stop: () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}
