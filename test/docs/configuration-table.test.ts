/**
 * The configuration table of docs/configuration.md and the code agree in both directions: every row
 * names variables the code knows, with the code's default; every variable of the code has
 * a row; and no file reads an environment variable that the table does not hold.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VARIABLES } from '../../src/config/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = 'docs/configuration.md';
const page = readFileSync(join(root, PAGE), 'utf8');

interface Row {
  names: string[];
  default: string;
  line: number;
}

/** The rows of the table under the page's title, before its first section. */
function configurationRows(text: string): Row[] {
  const lines = text.split('\n');
  const start = lines.indexOf('# Configuration');
  if (start < 0) throw new Error(`${PAGE} has no "# Configuration" title`);
  const rows: Row[] = [];
  for (let i = start + 1; i < lines.length && !lines[i]?.startsWith('## '); i++) {
    const line = lines[i] ?? '';
    if (!line.startsWith('|')) continue;
    const cells = line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (cells[0] === 'variable' || /^-+$/.test(cells[0] ?? '')) continue;
    const names = [...(cells[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
    rows.push({ names, default: cells[1] ?? '', line: i + 1 });
  }
  return rows;
}

/** What the default column says: `undefined` for "—" or "unset…", else the quoted text. */
function documentedDefault(cell: string): string | undefined | Error {
  if (cell === '—' || cell.startsWith('unset')) return undefined;
  const quoted = /^`([^`]*)`$/.exec(cell);
  return quoted ? quoted[1] : new Error(`default column not understood: ${cell}`);
}

/** Every environment variable `source` reads by name, and reads by a computed key. */
function environmentReads(source: string): { names: string[]; computed: number } {
  const names = new Set<string>();
  for (const m of source.matchAll(/\bprocess\.env\.([A-Za-z_]\w*)/g)) names.add(m[1] ?? '');
  for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1] ?? '');
  for (const m of source.matchAll(/\benv\[\s*(['"`])([^'"`]+)\1\s*\]/g)) names.add(m[2] ?? '');
  for (const m of source.matchAll(/\{([^{}]*)\}\s*=\s*(?:[\w.]+\.)?env\b/g)) {
    for (const part of (m[1] ?? '').split(',')) {
      const name = part.split(':')[0]?.trim();
      if (name && /^[A-Z][A-Z0-9_]*$/.test(name)) names.add(name);
    }
  }
  const computed = [...source.matchAll(/\benv\[\s*[^\s'"`\]]/g)].length;
  return { names: [...names].sort(), computed };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const known = Object.values(VARIABLES).map((v) => v.name);
const rows = configurationRows(page);
const sources = sourceFiles(join(root, 'src')).map((path) => ({
  file: relative(root, path),
  text: readFileSync(path, 'utf8'),
}));

describe('the configuration table of docs/configuration.md', () => {
  it('names only variables the code knows, each once, in the code order', () => {
    expect(rows.length).toBeGreaterThan(0);
    const documented = rows.flatMap((r) => r.names);
    for (const row of rows) {
      expect(row.names.length, `${PAGE} line ${row.line} names no variable`).toBeGreaterThan(0);
      for (const name of row.names) expect(known, `${PAGE} line ${row.line}`).toContain(name);
    }
    expect(documented).toEqual(known);
  });

  it("gives each variable the code's default, or none where the code has none", () => {
    const byName = new Map(Object.values(VARIABLES).map((v) => [v.name, v.default]));
    for (const row of rows) {
      const said = documentedDefault(row.default);
      expect(said, `${PAGE} line ${row.line}`).not.toBeInstanceOf(Error);
      for (const name of row.names) expect(said, name).toBe(byName.get(name));
    }
  });

  it('holds every variable the code reads, wherever it is read', () => {
    const readers = new Map<string, string[]>();
    for (const { file, text } of sources) {
      const { names, computed } = environmentReads(text);
      if (computed > 0) {
        expect(file, 'reads the environment by a computed name').toMatch(/^src\/config\//);
      }
      for (const name of names) readers.set(name, [...(readers.get(name) ?? []), file]);
    }
    for (const [name, files] of readers) expect(known, `${name} read in ${files}`).toContain(name);
    const config = sources.find((s) => s.file === 'src/config/index.ts')?.text ?? '';
    const loaded = [...config.matchAll(/\bread\('(\w+)'\)/g)].map(
      (m) => VARIABLES[m[1] as keyof typeof VARIABLES]?.name,
    );
    for (const name of known) {
      expect([...loaded, ...readers.keys()], `${name} is in the table but never read`).toContain(
        name,
      );
    }
  });

  it('is named rightly wherever the code (not a comment) mentions a variable', () => {
    const declared = new Set(
      sources.flatMap(({ text }) =>
        [...text.matchAll(/\b(?:const|let|function|class|enum|type)\s+([A-Z][A-Z0-9_]*)/g)].map(
          (m) => m[1],
        ),
      ),
    );
    for (const { file, text } of sources) {
      const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
      for (const [name] of code.matchAll(/\b(?:PIPEWATCH|SLACK|DISCORD|SMTP)_[A-Z0-9_]+\b/g)) {
        if (!declared.has(name)) expect(known, `${name} in ${file}`).toContain(name);
      }
    }
  });
});

describe('environmentReads', () => {
  it('finds every way of reading a variable by name, and none that is not one', () => {
    const source = `
      const a = process.env.HOME;
      const b = ctx.io.env.LOG_LEVEL ?? env['PIPEWATCH_X'] ?? env["SLACK_Y"];
      const { NO_COLOR, FORCE_COLOR: force } = this.io.env;
      const data = env.data ?? env.meta;
      const raw = env[spec.name];
    `;
    expect(environmentReads(source)).toEqual({
      names: ['FORCE_COLOR', 'HOME', 'LOG_LEVEL', 'NO_COLOR', 'PIPEWATCH_X', 'SLACK_Y'],
      computed: 1,
    });
  });
});
