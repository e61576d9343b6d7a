/**
 * What the rule schema finds wrong, turned into problems a person can act on: one plain
 * sentence each, placed at the line and column where the offending key or value was
 * written in the YAML, the way a compiler reports.
 */
import type { Document, LineCounter, Node } from 'yaml';
import type { z } from 'zod';
import { didYouMean, suggest } from '../lib/suggest.js';
import { knownKeys, TARGET_KINDS } from './schema.js';
import type { RuleProblem, SourcePosition } from './types.js';
import { yamlLibrary } from './yaml-library.js';

/** A rule file as parsed: the name positions carry, its YAML document and its line table. */
export interface RuleSource {
  file: string;
  doc: Document;
  lines: LineCounter;
}

type Path = PropertyKey[];
type Issue = z.core.$ZodIssue;

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

/**
 * Messages for the issues the schema leaves to its defaults, in the words of a rule file
 * rather than of JavaScript; given to the schema's parse, since the schema's own messages
 * must win over these.
 */
export const issueMessages: z.core.$ZodErrorMap = (issue) => {
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
  const { isMap, isScalar, isSeq } = yamlLibrary();
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

/**
 * Where the value at `path` was written, or its key when `atKey`, when the value is empty
 * or when the path goes deeper than the document does (a missing key is shown where its
 * mapping's key stands).
 */
export function positionAt(source: RuleSource, path: Path, atKey: boolean): SourcePosition {
  const { node, key } = locate(source.doc.contents, path);
  const empty =
    yamlLibrary().isScalar(node) && node.value === null && node.range?.[0] === node.range?.[1];
  const target = (atKey || empty || !node) && key ? key : (node ?? key);
  return { file: source.file, ...source.lines.linePos(target?.range?.[0] ?? 0) };
}

/**
 * The problems a file's schema issues amount to, each positioned in `source`. A key
 * reported missing is left out when an unknown key beside it looks like its typo, since
 * the typo's message already names it.
 */
export function issueProblems(issues: readonly Issue[], source: RuleSource): RuleProblem[] {
  const all = issues.flatMap((issue) => findings(issue));
  const typos = new Set(
    all.map((f) => f.meant && JSON.stringify([...f.path.slice(0, -1), f.meant])),
  );
  const problems: RuleProblem[] = [];
  for (const f of all) {
    if (f.message.startsWith(`${MISSING} `) && typos.has(JSON.stringify(f.path))) continue;
    problems.push({ ...positionAt(source, f.path, f.atKey), message: f.message });
  }
  return problems;
}
