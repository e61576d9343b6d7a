/**
 * `node --import tsx --import ./bench/compiled.mjs`: every module of `src/` loads from
 * `dist/` (see `compiled-hooks.mjs`). Registered after tsx, so its hooks see what tsx
 * resolved (`../src/x.js` to `src/x.ts`) and take the built `dist/x.js` instead.
 */
import { register } from 'node:module';

register('./compiled-hooks.mjs', import.meta.url);
