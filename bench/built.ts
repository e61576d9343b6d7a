/**
 * The program as users run it: `npm run build` compiles `src/` to `dist/`, which the
 * benchmarks that time or weigh processes start as `npx pipewatch` does (see
 * `programCommand`).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Builds `dist/` once more from the sources; throws with the compiler's words if it fails. */
export function buildDist(): void {
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0)
    throw new Error(`npm run build exited ${build.status}:\n${build.stdout}${build.stderr}`);
}
