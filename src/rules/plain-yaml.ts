/**
 * A fast reader for the plain YAML most rule files are written in: block mappings and
 * sequences, one-line `[a, b]` lists, plain and quoted one-line scalars, comments. The
 * `yaml` library builds a full syntax tree with every token, which costs ~0.2 ms and
 * ~20 KB per rule; this reads the same text in one pass and keeps only the values and
 * where each was written. Anything outside that subset (anchors, tags, block or
 * multi-line scalars, flow mappings, tabs, duplicate keys, numbers other than decimal,
 * any doubt) gives `undefined`, and the caller reads the file with the `yaml` library,
 * which then also reports every error. On what it accepts, values equal `yaml`'s.
 */
import type { SourcePosition } from './types.js';

/**
 * A value as read, with where it starts; a mapping keeps its keys in order, each with the
 * line and column it starts at (arrays rather than a `Map`: a rule has several mappings
 * of a few keys each, and thousands of rules are read at once).
 */
export type PlainNode =
  | { kind: 'scalar'; value: unknown; line: number; col: number }
  | { kind: 'seq'; items: PlainNode[]; line: number; col: number }
  | {
      kind: 'map';
      keys: string[];
      /** Line and column of each key, two numbers a key. */
      keyAt: number[];
      nodes: PlainNode[];
      line: number;
      col: number;
    };

/** What the reader gives up on, internally: the caller falls back to the `yaml` library. */
class Unsupported extends Error {}
const give = (): never => {
  throw new Unsupported();
};

interface Line {
  /** 1-based line number. */
  no: number;
  indent: number;
  text: string;
}

const INDICATOR = /^[?:,\]{}#&*!|>%@`]/;
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)(?:[eE][-+]?[0-9]+)?$|^[-+]?[0-9]+[eE][-+]?[0-9]+$/;
/** Plain scalars the core schema reads as something this reader does not resolve itself. */
const OTHER_NUMBER = /^(?:0o|0x|[-+]?\.(?:inf|Inf|INF)$|\.nan$|\.NaN$|\.NAN$)/;

/** A plain scalar's value under YAML 1.2's core schema, as the `yaml` library resolves it. */
function resolvePlain(text: string): unknown {
  if (NULL.test(text)) return null;
  if (BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
  if (INT.test(text)) return Number.parseInt(text, 10);
  if (FLOAT.test(text)) return Number.parseFloat(text);
  if (OTHER_NUMBER.test(text)) give();
  return text;
}

const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t' };

/** A quoted scalar starting at `at` in `s`: its value and the index after its closing quote. */
function quoted(s: string, at: number): { value: string; end: number } {
  const q = s[at]!;
  const close = s.indexOf(q, at + 1);
  if (close < 0) give();
  // Most quoted values have no escape: their text is what stands between the quotes.
  const simple = q === '"' ? s.indexOf('\\', at + 1) : s.indexOf("''", at + 1);
  if (simple < 0 || simple > close) return { value: s.slice(at + 1, close), end: close + 1 };
  let out = '';
  for (let i = at + 1; i < s.length; i++) {
    const c = s[i]!;
    if (q === "'" && c === "'") {
      if (s[i + 1] === "'") {
        out += "'";
        i++;
        continue;
      }
      return { value: out, end: i + 1 };
    }
    if (q === '"' && c === '"') return { value: out, end: i + 1 };
    if (q === '"' && c === '\\') {
      const e = ESCAPES[s[i + 1] ?? ''];
      if (e === undefined) give();
      out += e;
      i++;
      continue;
    }
    out += c;
  }
  return give();
}

/** Only spaces and an optional comment from `at` to the end of `s`. */
function restIsEmpty(s: string, at: number): boolean {
  let i = at;
  while (s.charCodeAt(i) === 32) i++;
  return i === s.length || (s[i] === '#' && i > at);
}

/** A plain scalar in block context: up to a comment; `key: value` inside it is not plain. */
function plainText(s: string): string {
  const hash = s.indexOf(' #');
  const text = (hash < 0 ? s : s.slice(0, hash)).trimEnd();
  if (text.includes(': ') || text.endsWith(':') || INDICATOR.test(text)) give();
  if (text[0] === '-' && (text.length === 1 || text[1] === ' ')) give();
  return text;
}

/** A one-line `[a, "b", c]` starting at column `col` of `s`. */
function flowSeq(s: string, at: number, no: number, base: number): PlainNode {
  const items: PlainNode[] = [];
  let i = at + 1;
  const skip = () => {
    while (s[i] === ' ') i++;
  };
  skip();
  if (s[i] === ']') return { kind: 'seq', items, line: no, col: base + at + 1 };
  for (;;) {
    skip();
    const start = i;
    if (s[i] === '"' || s[i] === "'") {
      const q = quoted(s, i);
      items.push({ kind: 'scalar', value: q.value, line: no, col: base + start + 1 });
      i = q.end;
    } else {
      while (i < s.length && !',]'.includes(s[i]!)) i++;
      const text = s.slice(start, i).trimEnd();
      if (text === '' || /[[\]{}#:"']/.test(text) || INDICATOR.test(text) || text[0] === '-')
        give();
      items.push({ kind: 'scalar', value: resolvePlain(text), line: no, col: base + start + 1 });
    }
    skip();
    if (s[i] === ',') {
      i++;
      continue;
    }
    if (s[i] !== ']' || !restIsEmpty(s, i + 1)) give();
    return { kind: 'seq', items, line: no, col: base + at + 1 };
  }
}

/** The value written inline after `key:` or `- `, at column `col` (1-based) of line `no`. */
function inline(s: string, no: number, col: number): PlainNode {
  const c = s[0];
  if (c === '"' || c === "'") {
    const q = quoted(s, 0);
    if (!restIsEmpty(s, q.end)) give();
    return { kind: 'scalar', value: q.value, line: no, col };
  }
  if (c === '[') return flowSeq(s, 0, no, col - 1);
  return { kind: 'scalar', value: resolvePlain(plainText(s)), line: no, col };
}

/** `key: rest` at the start of `s`, or undefined when `s` is no mapping entry. */
function keyOf(s: string): { key: string; rest: string; restAt: number } | undefined {
  const m = /^([^\s"'[\]{}#&*!|>%@`,?:-][^:#]*?|-[^\s:#][^:#]*?):(?: +|$)/.exec(s);
  if (!m) {
    if (/^["'?]/.test(s)) give();
    return undefined;
  }
  const key = m[1]!;
  if (key !== key.trimEnd() || key === '__proto__' || key === '<<' || resolvePlain(key) !== key)
    give();
  return { key, rest: s.slice(m[0].length), restAt: m[0].length };
}

/** Takes each item of the top-level `rules:` list as it is read; false stops the reading. */
export type ItemSink = (item: PlainNode, index: number) => boolean;

class Reader {
  private i = 0;
  /** The next list read is the top-level `rules:` one, whose items go to `sink`. */
  private toSink = false;
  constructor(
    private readonly lines: Line[],
    private readonly sink?: ItemSink,
  ) {}

  private peek(): Line | undefined {
    return this.lines[this.i];
  }

  /** The block node whose lines start at the current one, at exactly `indent`. */
  block(indent: number): PlainNode {
    const first = this.peek()!;
    if (first.text === '-' || first.text.startsWith('- ')) return this.seq(indent);
    if (keyOf(first.text)) return this.map(indent, first.text, first.no, first.indent);
    return give();
  }

  /** What follows `key:` or `-` with nothing after it: a nested block, or null. */
  private nested(parent: number, allowSeqAtSame: boolean, no: number, col: number): PlainNode {
    const next = this.peek();
    if (next && next.indent > parent) return this.block(next.indent);
    if (next && allowSeqAtSame && next.indent === parent && /^-( |$)/.test(next.text))
      return this.seq(parent);
    return { kind: 'scalar', value: null, line: no, col };
  }

  private seq(indent: number): PlainNode {
    const sink = this.toSink ? this.sink : undefined;
    this.toSink = false;
    const first = this.peek()!;
    const node: PlainNode = { kind: 'seq', items: [], line: first.no, col: indent + 1 };
    // Items handed to a sink are not kept: they are garbage before the next one is read.
    let index = 0;
    const items = {
      push: (item: PlainNode) => {
        if (!sink) node.items.push(item);
        else if (!sink(item, index++)) give();
      },
    };
    for (let l = this.peek(); l && l.indent === indent && /^-( |$)/.test(l.text); l = this.peek()) {
      this.i++;
      const after = l.text.slice(1);
      const rest = after.trimStart();
      const col = indent + 1 + (after.length - rest.length) + 1;
      if (rest === '' || rest[0] === '#') {
        items.push(this.nested(indent, false, l.no, indent + 1));
      } else if (rest === '-' || rest.startsWith('- ')) {
        give();
      } else if (keyOf(rest)) {
        items.push(this.map(col - 1, rest, l.no, col - 1));
      } else {
        items.push(inline(rest, l.no, col));
        this.noContinuation(indent);
      }
    }
    const after = this.peek();
    if (after && after.indent > indent) give();
    return node;
  }

  /** A mapping whose first entry is `text`, at column `indent` of line `no` (read already or not). */
  private map(indent: number, text: string, no: number, at: number): PlainNode {
    const keys: string[] = [];
    const keyAt: number[] = [];
    const nodes: PlainNode[] = [];
    const node: PlainNode = { kind: 'map', keys, keyAt, nodes, line: no, col: at + 1 };
    this.toSink = false;
    let entry: { text: string; no: number } | undefined = { text, no };
    if (this.peek()?.no === no) this.i++;
    while (entry) {
      const k = keyOf(entry.text);
      if (!k) give();
      const { key, rest, restAt } = k!;
      if (keys.includes(key)) give();
      let value: PlainNode;
      if (rest === '' || rest[0] === '#') {
        // Only the root mapping stands at column 0.
        this.toSink = indent === 0 && key === 'rules' && this.sink !== undefined;
        value = this.nested(indent, true, entry.no, indent + 1);
        this.toSink = false;
      } else {
        value = inline(rest, entry.no, indent + restAt + 1);
        this.noContinuation(indent);
      }
      keys.push(key);
      keyAt.push(entry.no, indent + 1);
      nodes.push(value);
      const next = this.peek();
      if (next && next.indent === indent && !/^-( |$)/.test(next.text)) {
        this.i++;
        entry = { text: next.text, no: next.no };
      } else {
        if (next && next.indent > indent) give();
        entry = undefined;
      }
    }
    return node;
  }

  /** A line more indented after an inline value would continue it: not plain. */
  private noContinuation(indent: number): void {
    const next = this.peek();
    if (next && next.indent > indent) give();
  }

  done(): boolean {
    return this.i >= this.lines.length;
  }
}

/**
 * `text` read as plain YAML: its value (null for a file of comments) and its node tree,
 * or undefined when the text needs the `yaml` library.
 */
export function readPlainYaml(text: string): { data: unknown; root: PlainNode | null } | undefined {
  const root = readPlainTree(text);
  return root === undefined ? undefined : { data: root && toJS(root), root };
}

/**
 * `text`'s node tree as `readPlainYaml` reads it, except that each item of a top-level
 * `rules:` block list goes to `sink` as soon as it is read, and is not kept in the tree.
 */
export function readPlainTree(text: string, sink?: ItemSink): PlainNode | null | undefined {
  if (/[\t\r\uFEFF]/.test(text)) return undefined;
  const lines: Line[] = [];
  const raw = text.split('\n');
  for (let n = 0; n < raw.length; n++) {
    const s = raw[n]!;
    const body = s.trimStart();
    if (body === '' || body[0] === '#') continue;
    if (/^(?:---|\.\.\.|%)/.test(s)) return undefined;
    lines.push({ no: n + 1, indent: s.length - body.length, text: body.trimEnd() });
  }
  if (lines.length === 0) return null;
  try {
    const reader = new Reader(lines, sink);
    if (lines[0]!.indent !== 0) return undefined;
    const root = reader.block(0);
    if (!reader.done() || root.kind === 'scalar') return undefined;
    return root;
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

/** The plain value of a node. */
export function toJS(node: PlainNode): unknown {
  if (node.kind === 'scalar') return node.value;
  if (node.kind === 'seq') return node.items.map(toJS);
  const out: Record<string, unknown> = {};
  for (let i = 0; i < node.keys.length; i++) out[node.keys[i]!] = toJS(node.nodes[i]!);
  return out;
}

/**
 * Where the value at `path` was written, or its key when `atKey`, as the `yaml`-based
 * `positionAt` says for a file without errors: a null value written as nothing points at
 * its key.
 */
export function plainPositionAt(
  root: PlainNode | null,
  file: string,
  path: readonly PropertyKey[],
  atKey: boolean,
): SourcePosition {
  let node = root;
  let key: { line: number; col: number } | null = null;
  for (const segment of path) {
    const k = node?.kind === 'map' ? node.keys.indexOf(segment as string) : -1;
    if (node?.kind === 'map' && k >= 0) {
      key = { line: node.keyAt[2 * k]!, col: node.keyAt[2 * k + 1]! };
      node = node.nodes[k]!;
    } else if (node?.kind === 'seq' && typeof segment === 'number' && node.items[segment]) {
      key = null;
      node = node.items[segment]!;
    } else {
      break;
    }
  }
  const target = atKey && key ? key : (node ?? key);
  return { file, line: target?.line ?? 1, col: target?.col ?? 1 };
}
