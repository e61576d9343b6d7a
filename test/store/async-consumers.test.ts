/**
 * What a standby replica runs against the shared database uses the asynchronous store
 * only: no file of `chat/`, `frontends/` or `unsubscribe/` imports the synchronous
 * `Store` (store/index.ts) or a repository's module for its class, so none of them can
 * call it by accident while the rest of the house still does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const FOLDERS = ['chat', 'frontends', 'unsubscribe'];

/** The imports of `file` that bring in `Store` (store/index.ts) or a repository class (`…Store`). */
function syncStoreImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']*\/store\/[^']*)'/g)]
    .filter(
      ([, names, from]) => /\/index\.js$/.test(from!) || /\b(?!Async)[A-Z]\w*Store\b/.test(names!),
    )
    .map(([line]) => line.replace(/\s+/g, ' '));
}

describe('the asynchronous store’s first users', () => {
  it('never import the synchronous store', () => {
    const found: string[] = [];
    for (const folder of FOLDERS)
      for (const entry of readdirSync(join(SRC, folder), { recursive: true, withFileTypes: true }))
        if (entry.isFile() && entry.name.endsWith('.ts')) {
          const file = join(entry.parentPath, entry.name);
          for (const line of syncStoreImports(file))
            found.push(`${file.slice(SRC.length + 1)}: ${line}`);
        }
    expect(found).toEqual([]);
  });
});
