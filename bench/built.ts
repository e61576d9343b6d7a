/**
 * The program as users run it: `npm run build` compiles `src/` to `dist/`, which the
 * benchmarks that time or weigh processes start as `npx pipewatch` does (see
 * `programCommand`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUILT_MAIN } from '../test/fakes/daemon-process.js';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Builds `dist/` once more from the sources; throws with the compiler's words if it fails. */
export function buildDist(): void {
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0)
    throw new Error(`npm run build exited ${build.status}:\n${build.stdout}${build.stderr}`);
}

/**
 * The options the executable's first line gives node (`#!/usr/bin/env -S node …`), for a
 * benchmark that runs built modules in a process of its own as pipewatch would run them.
 */
export function executableNodeOptions(): string[] {
  const first = readFileSync(BUILT_MAIN, 'utf8').split('\n')[0]!;
  const words = first.split(/\s+/);
  const node = words.indexOf('node');
  if (!first.startsWith('#!') || node < 0) throw new Error(`no node in ${BUILT_MAIN}: ${first}`);
  return words.slice(node + 1);
}
