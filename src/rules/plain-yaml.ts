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
import { give, inline, keyOf, type PlainNode, Unsupported } from './plain-yaml-scalars.js';
import type { SourcePosition } from './types.js';

export type { PlainNode };

interface Line {
  /** 1-based line number. */
  no: number;
  indent: number;
  text: string;
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
    const first = this.peek() ?? give();
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
    const first = this.peek() ?? give();
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
        const item = this.nested(indent, false, l.no, indent + 1);
        // An empty item stands, for `yaml`, after the spaces that follow its dash: not kept.
        if (item.kind === 'scalar') give();
        items.push(item);
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
      const { key, rest, restAt } = k;
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
  // YAML's white space is the space and the tab; JavaScript's trimming takes more (the
  // no-break space, U+2028, \v, …), which YAML keeps in values: those files go to `yaml`.
  if (/[^\S \n]/.test(text)) return undefined;
  const lines: Line[] = [];
  const raw = text.split('\n');
  for (let n = 0; n < raw.length; n++) {
    const s = raw[n];
    const body = s.trimStart();
    if (body === '' || body[0] === '#') continue;
    if (/^(?:---|\.\.\.|%)/.test(s)) return undefined;
    lines.push({ no: n + 1, indent: s.length - body.length, text: body.trimEnd() });
  }
  if (lines.length === 0) return null;
  try {
    const reader = new Reader(lines, sink);
    if (lines[0].indent !== 0) return undefined;
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
  for (let i = 0; i < node.keys.length; i++) out[node.keys[i]] = toJS(node.nodes[i]);
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
      key = { line: node.keyAt[2 * k], col: node.keyAt[2 * k + 1] };
      node = node.nodes[k];
    } else if (node?.kind === 'seq' && typeof segment === 'number' && node.items[segment]) {
      key = null;
      node = node.items[segment];
    } else {
      break;
    }
  }
  const target = atKey && key ? key : (node ?? key);
  return { file, line: target?.line ?? 1, col: target?.col ?? 1 };
}
