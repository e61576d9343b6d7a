/**
 * `npm run bench [name…]`: runs the benchmarks (all, or those named), prints their
 * figures, and merges them into bench/results.json under each benchmark's key.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { clientBench } from './client.js';

type Figures = Record<string, number | string>;
const BENCHES: Record<string, () => Promise<Figures>> = { client: clientBench };

const resultsPath = fileURLToPath(new URL('./results.json', import.meta.url));
const wanted = process.argv.slice(2);
const unknown = wanted.filter((n) => !(n in BENCHES));
if (unknown.length > 0) {
  console.error(
    `unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`,
  );
  process.exit(2);
}
const results: Record<string, Figures> = existsSync(resultsPath)
  ? JSON.parse(readFileSync(resultsPath, 'utf8'))
  : {};
for (const [name, bench] of Object.entries(BENCHES)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`== ${name}`);
  const figures = await bench();
  for (const [key, value] of Object.entries(figures)) console.log(`  ${key}: ${value}`);
  results[name] = figures;
}
writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
console.log(`written ${resultsPath}`);
