/**
 * Reads the rule files of a directory into `Rule`s. Every problem in every file is
 * reported with the line and column it was written at, so that one run of
 * `pipewatch rules validate` shows all there is to fix, the way a compiler does.
 */

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { errorCode, errorMessage } from '../lib/error-text.js';
import { issueMessages, issueProblems, positionAt, type RuleSource } from './issues.js';
import { type PlainNode, plainPositionAt, readPlainTree, toJS } from './plain-yaml.js';
import { type RuleBody, ruleFileSchema, ruleSchema } from './schema.js';
import {
  type CapacityRule,
  formatProblem,
  type Rule,
  type RuleProblem,
  type SourcePosition,
} from './types.js';
import { yamlLibrary } from './yaml-library.js';

/** What a directory of rule files holds: the valid rules, and every problem found. */
export interface LoadedRules {
  /** Rules without problems; callers that need all or nothing check `problems`. */
  rules: Rule[];
  problems: RuleProblem[];
  /** The rule files read, as shown in positions. */
  files: string[];
}

type Path = PropertyKey[];

const RULE_FILE = /\.ya?ml$/i;

/** `value[key]` of a value read from YAML, whatever it is: undefined when it has no such key. */
function member(value: unknown, key: string): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  const own: unknown = Object.getOwnPropertyDescriptor(value, key)?.value;
  return own;
}

/** Every pipeline slug a valid rule item names, with its path inside the item. */
function slugsOf(item: unknown): Array<{ slug: string; path: Path }> {
  const out: Array<{ slug: string; path: Path }> = [];
  const listAt = (value: unknown, path: Path) => {
    const list = member(value, 'pipelines');
    if (!Array.isArray(list)) return;
    list.forEach((slug, j) => {
      if (typeof slug === 'string')
        out.push({ slug: slug.trim().toLowerCase(), path: [...path, 'pipelines', j] });
    });
  };
  for (const kind of ['notices', 'deadlines', 'capacity']) {
    const section = member(item, kind);
    listAt(section, [kind]);
    listAt(member(section, 'not'), [kind, 'not']);
  }
  return out;
}

/** Every location entry a valid capacity rule item names, as written, with its path inside the item. */
function locationsOf(item: unknown): Array<{ location: string; path: Path }> {
  const list = member(member(item, 'capacity'), 'locations');
  if (!Array.isArray(list)) return [];
  return list.flatMap((location, j) =>
    typeof location === 'string'
      ? [{ location: location.trim(), path: ['capacity', 'locations', j] }]
      : [],
  );
}

/**
 * The positions of what a rule names that is checked against the API (pipeline slugs,
 * location entries), found by `at` from paths inside the item.
 */
function refsOf(
  item: unknown,
  at: (path: Path) => SourcePosition,
): Pick<Rule, 'pipelineRefs'> & Pick<CapacityRule, 'locationRefs'> {
  const pipelineRefs = slugsOf(item).map(({ slug, path }) => ({ slug, at: at(path) }));
  const locationRefs = locationsOf(item).map(({ location, path }) => ({ location, at: at(path) }));
  return {
    ...(pipelineRefs.length > 0 ? { pipelineRefs } : {}),
    ...(locationRefs.length > 0 ? { locationRefs } : {}),
  };
}

/** A rule file's valid rules, its problems, and every rule name with where it was written. */
interface ParsedFile {
  rules: Rule[];
  problems: RuleProblem[];
  names: Array<{ name: string; at: SourcePosition }>;
}

/**
 * A file in plain YAML whose every rule is valid, read without the `yaml` library's
 * syntax tree and validated once per rule; undefined for anything else, which the full
 * reading then reports, with every position, exactly as it always has.
 */
function parsePlainFile(text: string, file: string): ParsedFile | undefined {
  const out: ParsedFile = { rules: [], problems: [], names: [] };
  // Each rule is validated as soon as it is read, so that its nodes die young.
  const root = readPlainTree(text, (node) => {
    const item = toJS(node);
    const parsed = ruleSchema.safeParse(item, { error: issueMessages });
    if (!parsed.success) return false;
    out.rules.push(ruleOf(item, parsed.data, node, file, out));
    return true;
  });
  if (root === null) return out;
  if (root?.kind !== 'map' || root.keys.length !== 1 || root.keys[0] !== 'rules') return undefined;
  const list = root.nodes[0];
  // A list written `[…]` on one line is not streamed: only an empty one is plain enough.
  return list.kind === 'seq' && list.items.length === 0 ? out : undefined;
}

/** A valid rule item as a `Rule`, its name noted with where it was written. */
function ruleOf(
  item: unknown,
  body: RuleBody,
  node: PlainNode,
  file: string,
  out: ParsedFile,
): Rule {
  const where = plainPositionAt(node, file, ['name'], true);
  out.names.push({ name: body.name, at: where });
  const refs = refsOf(item, (path) => plainPositionAt(node, file, path, false));
  return withPlace(body, where, refs);
}

/**
 * A rule's body with where it was written and where its names are: each kind of body
 * becomes the same kind of rule.
 */
function withPlace(body: RuleBody, at: SourcePosition, refs: ReturnType<typeof refsOf>): Rule {
  return { ...body, at, ...refs };
}

function parseFile(text: string, file: string): ParsedFile {
  const plain = parsePlainFile(text, file);
  if (plain) return plain;
  const yaml = yamlLibrary();
  const lines = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter: lines, uniqueKeys: true });
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
    out.problems.push({ ...position(0), message: errorMessage(error) });
    return out;
  }
  if (data === null || data === undefined) return out;

  const source: RuleSource = { file, doc, lines };
  const at = (path: Path, atKey: boolean) => positionAt(source, path, atKey);
  const issues = ruleFileSchema.safeParse(data, { error: issueMessages }).error?.issues ?? [];
  const invalid = new Set(issues.filter((i) => i.path[0] === 'rules').map((i) => i.path[1]));
  out.problems.push(...issueProblems(issues, source));
  const items = member(data, 'rules');
  if (!Array.isArray(items)) return out;
  items.forEach((item: unknown, i) => {
    const name = member(item, 'name');
    if (typeof name !== 'string') return;
    const where = at(['rules', i, 'name'], true);
    out.names.push({ name: name.trim(), at: where });
    if (invalid.has(i)) return;
    const parsed = ruleSchema.safeParse(item);
    if (!parsed.success) return;
    const refs = refsOf(item, (path) => at(['rules', i, ...path], false));
    out.rules.push(withPlace(parsed.data, where, refs));
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
    const code = errorCode(error);
    return fail(
      code === 'ENOENT'
        ? `rules directory not found: ${shown}`
        : `cannot read rules directory ${shown}: ${code ?? errorMessage(error)}`,
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
      const message = `cannot read: ${errorCode(error) ?? String(error)}`;
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
