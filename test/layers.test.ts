/**
 * The layers of docs/ARCHITECTURE.md, enforced: every import in `src/` runs from a folder
 * to itself or to a folder its row of the table allows. The table is read from the
 * document, so the document and the rule cannot drift apart.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');

/** `folder → folders it may import`, from the Layers table. */
function layerTable(markdown: string): Map<string, Set<string>> {
  const section = markdown.split(/^## Layers$/m)[1]?.split(/^## /m)[0] ?? '';
  const table = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const folder = /^`([\w.]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!folder) continue;
    const allowed =
      cells[2] === 'every folder'
        ? ['*']
        : [...(cells[2] ?? '').matchAll(/`(\w+)`/g)].map((m) => m[1]!);
    table.set(folder, new Set(allowed));
  }
  return table;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** `src/alerts/engine.ts` → `alerts`; `src/main.ts` → `main.ts`. */
function folderOf(src: string, file: string): string {
  return relative(src, file).split('/')[0]!;
}

/** Every relative module a file imports or re-exports, statically or with `import()`. */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((m) => m.startsWith('.'));
}

/** The imports of the files under `src` that the table does not allow, one line each. */
function importsAgainst(src: string, table: Map<string, Set<string>>): string[] {
  const against: string[] = [];
  for (const file of sourceFiles(src)) {
    const from = folderOf(src, file);
    const allowed = table.get(from) ?? new Set<string>();
    for (const spec of importsOf(file)) {
      const target = resolve(dirname(file), spec);
      const to = relative(src, target).startsWith('..') ? '(outside src)' : folderOf(src, target);
      if (to === from || allowed.has('*') || allowed.has(to)) continue;
      against.push(`${relative(src, file)} imports ${to} (${spec})`);
    }
  }
  return against;
}

const table = layerTable(readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8'));
const files = sourceFiles(SRC);

describe('layers (docs/ARCHITECTURE.md)', () => {
  it('the table names every folder of src/ and nothing else', () => {
    const folders = new Set(files.map((f) => folderOf(SRC, f)));
    expect([...table.keys()].sort()).toEqual([...folders].sort());
  });

  it('every import in src/ runs to the same folder or one its row allows', () => {
    expect(importsAgainst(SRC, table)).toEqual([]);
  });

  it('reports an import against the flow, static, re-exported or dynamic', () => {
    const src = mkdtempSync(join(tmpdir(), 'pipewatch-layers-'));
    try {
      for (const dir of ['lib', 'store', 'alerts']) mkdirSync(join(src, dir));
      writeFileSync(join(src, 'alerts/decide.ts'), "import { x } from '../store/rows.js';\n");
      writeFileSync(
        join(src, 'store/rows.ts'),
        "import type { A } from '../alerts/decide.js';\nexport * from '../lib/time.js';\n",
      );
      writeFileSync(join(src, 'lib/time.ts'), "const m = await import('../store/rows.js');\n");
      expect(importsAgainst(src, table).sort()).toEqual([
        'lib/time.ts imports store (../store/rows.js)',
        'store/rows.ts imports alerts (../alerts/decide.js)',
      ]);
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  });

  it('only store/ prepares SQL statements', () => {
    const outside = files
      .filter((f) => folderOf(SRC, f) !== 'store')
      .filter((f) => /\.prepare\s*[<(]|\.exec\(\s*[`'"]/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(outside).toEqual([]);
  });
});
