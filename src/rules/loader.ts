/**
 * Reads the rule files of a directory into `Rule`s. Every problem in every file is
 * reported with the line and column it was written at, so that one run of
 * `pipewatch rules validate` shows all there is to fix, the way a compiler does.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import type { z } from 'zod';
import { didYouMean, suggest } from '../lib/suggest.js';
import { knownKeys, type RuleBody, ruleFileSchema, ruleSchema, TARGET_KINDS } from './schema.js';
import { formatProblem, type Rule, type RuleProblem, type SourcePosition } from './types.js';

/** What a directory of rule files holds: the valid rules, and every problem found. */
export interface LoadedRules {
  /** Rules without problems; callers that need all or nothing check `problems`. */
  rules: Rule[];
  problems: RuleProblem[];
  /** The rule files read, as shown in positions. */
  files: string[];
}

type Path = PropertyKey[];
type Issue = z.core.$ZodIssue;

const RULE_FILE = /\.ya?ml$/i;
const MISSING = 'missing';
const EXPECTED: Record<string, string> = {
  string: 'text',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping (key: value)',
};

function describe(value: unknown): string {
  if (value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `'${value}'`;
  return `${typeof value} ${String(value)}`;
}

/** Messages for the issues the schema leaves to its defaults. */
const errorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return MISSING;
      return `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${describe(issue.input)}${
        issue.expected === 'object' && issue.input === null
          ? ' (write {} for an empty mapping)'
          : ''
      }`;
    case 'invalid_value': {
      const values = issue.values.map(String);
      const hint = typeof issue.input === 'string' ? didYouMean(issue.input, values) : '';
      return `${describe(issue.input)} is not one of ${values.join(', ')}${hint}`;
    }
    case 'too_small':
      return issue.origin === 'number' ? `must be at least ${issue.minimum}` : 'must not be empty';
    case 'too_big':
      return `must be at most ${issue.maximum}`;
    default:
      return undefined;
  }
};

/** `before[1]`: the field an issue is about, from its path. */
function label(path: Path): string {
  if (path.length === 2 && path[0] === 'rules') return 'rule';
  const last = path.findLastIndex((s) => typeof s === 'string');
  if (last < 0) return '';
  return `${String(path[last])}${path
    .slice(last + 1)
    .map((i) => `[${String(i)}]`)
    .join('')}`;
}

/** `in notices`, `in a rule`, `at the top level`: where a key was looked for. */
function where(path: Path): string {
  if (path.length === 0) return 'at the top level';
  const l = label(path);
  return l === 'rule' ? 'in a rule' : `in ${l}`;
}

interface Finding {
  path: Path;
  message: string;
  /** Point at the key rather than at its value. */
  atKey: boolean;
  /** An unknown key that looks like a typo of this key, which then need not be reported missing. */
  meant?: string | undefined;
}

/** One issue as findings: an unknown-keys issue gives one per key, a union its best branch. */
function findings(issue: Issue, base: Path = []): Finding[] {
  const path = [...base, ...issue.path];
  switch (issue.code) {
    case 'unrecognized_keys': {
      const isTarget = path.length === 4 && path[2] === 'notify';
      const known = knownKeys(path) ?? [];
      return issue.keys.map((key) => ({
        path: [...path, key],
        atKey: true,
        meant: suggest(key, isTarget ? TARGET_KINDS : known),
        message: isTarget
          ? `unknown target '${key}'${didYouMean(key, TARGET_KINDS) || `; targets are ${TARGET_KINDS.join(', ')}`}`
          : `unknown key '${key}' ${where(path)}${
              didYouMean(key, known) || (known.length ? `; expected ${known.join(', ')}` : '')
            }`,
      }));
    }
    case 'invalid_union': {
      const typeFails = (branch: Issue[]) =>
        branch.some(
          (i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value'),
        );
      const branch = issue.errors.find((b) => !typeFails(b));
      if (branch) return branch.flatMap((i) => findings(i, path));
      break;
    }
    case 'invalid_type':
      if (issue.message === MISSING) {
        const key = String(path.at(-1));
        return [{ path, atKey: false, message: `missing '${key}' ${where(path.slice(0, -1))}` }];
      }
      break;
  }
  const atKey = (issue as { params?: { at?: string } }).params?.at === 'key';
  const l = label(path);
  return [{ path, atKey, message: atKey || l === '' ? issue.message : `${l}: ${issue.message}` }];
}

/** The YAML node at `path`, or the deepest one there is; with the key it stands under. */
function locate(root: unknown, path: Path): { node: Node | null; key: Node | null } {
  let node = root as Node | null;
  let key: Node | null = null;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === segment);
      if (!pair) break;
      key = pair.key as Node;
      node = pair.value as Node | null;
    } else if (isSeq(node) && typeof segment === 'number' && node.items[segment]) {
      key = null;
      node = node.items[segment] as Node;
    } else {
      break;
    }
  }
  return { node, key };
}

/** Every pipeline slug a valid rule item names, with its path inside the item. */
function slugsOf(item: unknown): Array<{ slug: string; path: Path }> {
  const out: Array<{ slug: string; path: Path }> = [];
  const listAt = (value: unknown, path: Path) => {
    const list = (value as { pipelines?: unknown } | null | undefined)?.pipelines;
    if (!Array.isArray(list)) return;
    list.forEach((slug, j) => {
      if (typeof slug === 'string')
        out.push({ slug: slug.trim().toLowerCase(), path: [...path, 'pipelines', j] });
    });
  };
  for (const kind of ['notices', 'deadlines', 'capacity']) {
    const section = (item as Record<string, unknown>)[kind];
    if (section === null || typeof section !== 'object') continue;
    listAt(section, [kind]);
    listAt((section as { not?: unknown }).not, [kind, 'not']);
  }
  return out;
}

/** A rule file's valid rules, its problems, and every rule name with where it was written. */
interface ParsedFile {
  rules: Rule[];
  problems: RuleProblem[];
  names: Array<{ name: string; at: SourcePosition }>;
}

function parseFile(text: string, file: string): ParsedFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const position = (offset: number): SourcePosition => ({ file, ...lines.linePos(offset) });
  const out: ParsedFile = { rules: [], problems: [], names: [] };
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const message = e.message.replace(/\s+at line \d+, column \d+:[\s\S]*$/, '');
      out.problems.push({ file, ...(e.linePos?.[0] ?? { line: 1, col: 1 }), message });
    }
    return out;
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    out.problems.push({ ...position(0), message: (error as Error).message });
    return out;
  }
  if (data === null || data === undefined) return out;

  const at = (path: Path, atKey: boolean): SourcePosition => {
    const { node, key } = locate(doc.contents, path);
    const empty = isScalar(node) && node.value === null && node.range?.[0] === node.range?.[1];
    const target = (atKey || empty || !node) && key ? key : (node ?? key);
    return position(target?.range?.[0] ?? 0);
  };
  const result = ruleFileSchema.safeParse(data, { error: errorMap });
  const invalid = new Set<unknown>();
  const all = (result.error?.issues ?? []).flatMap((issue) => {
    if (issue.path[0] === 'rules') invalid.add(issue.path[1]);
    return findings(issue);
  });
  const typos = new Set(
    all.map((f) => f.meant && JSON.stringify([...f.path.slice(0, -1), f.meant])),
  );
  for (const f of all) {
    if (f.message.startsWith(`${MISSING} `) && typos.has(JSON.stringify(f.path))) continue;
    out.problems.push({ ...at(f.path, f.atKey), message: f.message });
  }
  const items = (data as { rules?: unknown }).rules;
  if (!Array.isArray(items)) return out;
  items.forEach((item, i) => {
    const name = (item as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') return;
    const where = at(['rules', i, 'name'], true);
    out.names.push({ name: name.trim(), at: where });
    if (invalid.has(i)) return;
    const parsed = ruleSchema.safeParse(item);
    if (!parsed.success) return;
    const pipelineRefs = slugsOf(item).map(({ slug, path }) => ({
      slug,
      at: at(['rules', i, ...path], false),
    }));
    out.rules.push({
      ...(parsed.data as RuleBody),
      at: where,
      ...(pipelineRefs.length > 0 ? { pipelineRefs } : {}),
    } as Rule);
  });
  return out;
}

/** Names written twice, case aside: every later one is a problem, and its rule is dropped. */
function checkDuplicates(files: ParsedFile[]): void {
  const first = new Map<string, SourcePosition>();
  for (const f of files) {
    for (const { name, at } of f.names) {
      const seen = first.get(name.toLowerCase());
      if (!seen) {
        first.set(name.toLowerCase(), at);
        continue;
      }
      const where = formatProblem({ ...seen, message: '' }).slice(0, -2);
      f.problems.push({ ...at, message: `duplicate rule name '${name}', first used at ${where}` });
      f.rules = f.rules.filter((r) => r.at !== at);
    }
  }
}

function byPosition(a: RuleProblem, b: RuleProblem): number {
  return a.line - b.line || a.col - b.col;
}

/**
 * Parses one rule file's text; `file` is the name positions carry. Names repeated within
 * the file are problems; across files, `loadRules` checks them.
 */
export function parseRuleFile(
  text: string,
  file: string,
): { rules: Rule[]; problems: RuleProblem[] } {
  const parsed = parseFile(text, file);
  checkDuplicates([parsed]);
  return { rules: parsed.rules, problems: parsed.problems.sort(byPosition) };
}

/** `rules/ops.yaml` inside the working directory, the absolute path outside it. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/**
 * Reads every `*.yaml` / `*.yml` file of `dir` (not hidden ones, not subdirectories), in
 * name order. A missing directory is a problem; an empty one holds zero rules.
 */
export function loadRules(dir: string, options: { cwd?: string } = {}): LoadedRules {
  const cwd = options.cwd ?? process.cwd();
  const abs = resolve(cwd, dir);
  const shown = displayPath(abs, cwd);
  const fail = (message: string): LoadedRules => ({
    rules: [],
    problems: [{ file: shown, line: 1, col: 1, message }],
    files: [],
  });
  let names: string[];
  try {
    if (!statSync(abs).isDirectory()) return fail(`rules directory is not a directory: ${shown}`);
    names = readdirSync(abs)
      .filter((n) => RULE_FILE.test(n) && !n.startsWith('.'))
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(
      code === 'ENOENT'
        ? `rules directory not found: ${shown}`
        : `cannot read rules directory ${shown}: ${code ?? (error as Error).message}`,
    );
  }
  const parsed: ParsedFile[] = [];
  const files: string[] = [];
  for (const name of names) {
    const full = join(abs, name);
    const file = displayPath(full, cwd);
    let text: string;
    try {
      if (!statSync(full).isFile()) continue;
      text = readFileSync(full, 'utf8');
    } catch (error) {
      const message = `cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
      parsed.push({ rules: [], problems: [{ file, line: 1, col: 1, message }], names: [] });
      files.push(file);
      continue;
    }
    parsed.push(parseFile(text, file));
    files.push(file);
  }
  checkDuplicates(parsed);
  return {
    rules: parsed.flatMap((p) => p.rules),
    problems: parsed.flatMap((p) => p.problems.sort(byPosition)),
    files,
  };
}
