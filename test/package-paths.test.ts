/**
 * Every package is loaded through a path it publishes (its `exports`), never a file
 * inside it: a library's next release may move its internals without a word, and the
 * daemon would fail at start, or worse, at its first scrape or first HTML notice.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  exports?: unknown;
}

const manifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** The subpaths (`./v10`, `./gateway/v*`) a package's `exports` publishes. */
function published(name: string): string[] {
  const exports = manifest(join(ROOT, 'node_modules', name)).exports;
  if (exports === undefined || typeof exports === 'string' || Array.isArray(exports)) return [];
  const keys = Object.keys(exports as object);
  return keys.every((k) => k.startsWith('.')) ? keys : [];
}

function isPublished(subpath: string, paths: readonly string[]): boolean {
  return paths.some((p) =>
    p.includes('*')
      ? subpath.startsWith(p.slice(0, p.indexOf('*'))) &&
        subpath.endsWith(p.slice(p.indexOf('*') + 1))
      : p === subpath,
  );
}

/** Every `'package/sub/path'` (quoted, or the head of a template) in a file's text. */
function subpathsIn(text: string, packages: readonly string[]): [string, string][] {
  const found: [string, string][] = [];
  for (const name of packages) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const m of text.matchAll(new RegExp(`['"\`]${escaped}/([^'"\`]*)`, 'g')))
      found.push([name, `./${m[1]}`]);
  }
  return found;
}

const own = manifest(ROOT);
const packages = Object.keys({ ...own.dependencies, ...own.devDependencies });
const files = readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.ts'))
  .map((e) => join(e.parentPath, e.name));

describe('packages are loaded through the paths they publish', () => {
  it('no file of src/ reaches inside a package', () => {
    const inside: string[] = [];
    for (const file of files) {
      for (const [name, subpath] of subpathsIn(readFileSync(file, 'utf8'), packages)) {
        if (!isPublished(subpath, published(name)))
          inside.push(`${file.slice(ROOT.length + 1)}: ${name}/${subpath.slice(2)}`);
      }
    }
    expect(inside).toEqual([]);
  });

  it('sees a path built in a template, and passes a published one', () => {
    const built = `./lib/metrics/\${name}.js`;
    const text = `require(\`prom-client/lib/metrics/\${name}.js\`); import 'discord-api-types/v10';`;
    const found = subpathsIn(text, ['prom-client', 'discord-api-types']);
    expect(found).toEqual([
      ['prom-client', built],
      ['discord-api-types', './v10'],
    ]);
    expect(isPublished(built, published('prom-client'))).toBe(false);
    expect(isPublished('./v10', published('discord-api-types'))).toBe(true);
  });
});
