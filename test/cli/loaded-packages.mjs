/**
 * Preload for the loading tests: registers the hooks that list the packages loaded
 * through `import`, and at exit adds those in `require`'s cache: what was loaded with
 * `require` (`createRequire`), which the hooks do not see.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.LOADED_PACKAGES_FILE;

register('./loaded-packages-hooks.mjs', import.meta.url, {
  data: {
    file,
    modules: process.env.LOADED_MODULES_FILE,
    root: new URL('../../', import.meta.url).href,
  },
});

const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const names = new Set();
  for (const path of Object.keys(cache)) {
    const at = path.lastIndexOf('/node_modules/');
    if (at < 0) continue;
    const parts = path.slice(at + '/node_modules/'.length).split('/');
    names.add(parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]);
  }
  if (names.size > 0) appendFileSync(file, [...names].map((n) => `${n}\n`).join(''));
});
