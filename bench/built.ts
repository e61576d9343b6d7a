/**
 * The program as users run it: `npm run build` compiles `src/` to `dist/`, which the
 * benchmarks that time or weigh processes start with plain `node`.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The built program's entry. */
export const BUILT_MAIN = join(ROOT, 'dist', 'main.js');

/** Builds `dist/` once more from the sources; throws with the compiler's words if it fails. */
export function buildDist(): void {
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0)
    throw new Error(`npm run build exited ${build.status}:\n${build.stdout}${build.stderr}`);
}
