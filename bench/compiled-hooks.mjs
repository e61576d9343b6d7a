/**
 * Module resolution hooks for the benchmark processes (`compiled.mjs` registers them):
 * a module of `src/` resolves to its build in `dist/` (`npm run build`, tsc's output), so
 * a benchmark times the code pipewatch runs, not the sources as tsx transforms them on
 * the fly (which, among other things, wraps every function it defines in a call that
 * names it). The benchmarks themselves, and the test fakes they start, still load
 * through tsx.
 */
const SRC = new URL('../src/', import.meta.url).href;
const DIST = new URL('../dist/', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith(SRC)) return resolved;
  const built = `${DIST}${resolved.url.slice(SRC.length).replace(/\.ts$/, '.js')}`;
  return { ...resolved, url: built, format: 'module' };
}
