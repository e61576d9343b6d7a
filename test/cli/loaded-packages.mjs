/** Preload for the loading tests: registers the hooks that list the packages loaded. */
import { register } from 'node:module';

register('./loaded-packages-hooks.mjs', import.meta.url, {
  data: {
    file: process.env.LOADED_PACKAGES_FILE,
    modules: process.env.LOADED_MODULES_FILE,
    root: new URL('../../', import.meta.url).href,
  },
});
