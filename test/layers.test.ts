/**
 * The layers of docs/ARCHITECTURE.md, enforced: every import in `src/` runs from a folder
 * to itself or to a folder its row of the table allows. The table is read from the
 * document, so the document and the rule cannot drift apart; so are its list of what each
 * folder holds and every file and folder it names.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
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

/**
 * The folders of "What each holds": `channels` for a bullet on **`channels/<name>/`**,
 * with the platforms its first parenthesised list of names gives (`console`, `slack`).
 */
function folderList(markdown: string): Map<string, string[] | undefined> {
  const section = markdown.split(/^What each holds:$/m)[1]?.split(/^## /m)[0] ?? '';
  const folders = new Map<string, string[] | undefined>();
  for (const bullet of section.split(/^- /m).slice(1)) {
    const head = /^\*\*`(\w+)\/(<\w+>\/)?`\*\*/.exec(bullet);
    if (!head) continue;
    const list = head[2] ? /\(((?:`[\w-]+`(?:, )?)+)\)/.exec(bullet)?.[1] : undefined;
    folders.set(head[1]!, list ? [...list.matchAll(/`([\w-]+)`/g)].map((m) => m[1]!) : undefined);
  }
  return folders;
}

/**
 * The paths the document names in backticks: of `src/` (`store/migrations.ts`, `http/`),
 * or of the repository where they begin with one of its own folders (`test/fakes/`).
 */
function namedPaths(markdown: string): string[] {
  const names = [...markdown.matchAll(/`([a-z-]+\/[\w./-]*)`/g)].map((m) => m[1]!);
  return [...new Set(names)].filter(
    (n) => !n.includes('<') && /^[a-z-]+\/([\w-]+\/)*([\w-]+\.ts)?$/.test(n),
  );
}

const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
const table = layerTable(doc);
const files = sourceFiles(SRC);

describe('layers (docs/ARCHITECTURE.md)', () => {
  it('the table names every folder of src/ and nothing else', () => {
    const folders = new Set(files.map((f) => folderOf(SRC, f)));
    expect([...table.keys()].sort()).toEqual([...folders].sort());
  });

  it('"What each holds" names every folder of src/, and the platforms of each channel folder', () => {
    const listed = folderList(doc);
    const folders = new Set(files.map((f) => folderOf(SRC, f)).filter((f) => !f.endsWith('.ts')));
    expect([...listed.keys()].sort()).toEqual([...folders].sort());
    for (const [folder, platforms] of listed) {
      if (!platforms) continue;
      const actual = readdirSync(join(SRC, folder), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
      expect(platforms.sort(), `the platforms listed for ${folder}/`).toEqual(actual.sort());
    }
  });

  it('every file and folder of src/ the document names exists', () => {
    const named = namedPaths(doc);
    expect(named.length).toBeGreaterThan(20);
    const where = (n: string) => (/^(src|test|docs|bench)\//.test(n) ? ROOT : SRC);
    expect(named.filter((n) => !existsSync(join(where(n), n)))).toEqual([]);
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
