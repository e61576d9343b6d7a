/**
 * The plain reader against the `yaml` library on thousands of small generated documents:
 * whatever the plain reader accepts, it must read to the same values at the same
 * positions, and the library must accept it too. Refusing is always allowed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineCounter, parseDocument } from 'yaml';
import { ruleFileText } from '../../bench/rule-files.js';
import { positionAt } from '../../src/rules/issues.js';
import {
  type PlainNode,
  plainPositionAt,
  readPlainTree,
  readPlainYaml,
  toJS,
} from '../../src/rules/plain-yaml.js';
import { seededRandom } from '../support/seeded-random.js';

const ODD_SPACE = [...'\u00a0\u2003\u3000\u2028\u1680\u202f\v\f\u0085'];
const PLAIN = [
  ...['yes', 'no', 'on', 'off', 'y', 'n', 'True', 'TRUE', 'true', 'False', 'false', 'tRUE'],
  ...['NULL', 'Null', 'null', 'nULL', '~', '', '0x1F', '0X1F', '0o17', '0O17', '0o8', '0x'],
  ...['017', '00', '0', '1_000', '+1', '-0', '+0', '.5', '+.5', '-.5', '1.', '3.', '1.0'],
  ...['1e3', '1E3', '1e+3', '1e-3', '1.e3', '.e3', '1e', 'e3', '-1.5e-3', '1e400', '00.5'],
  ...['9007199254740993', '0b101', '.inf', '-.inf', '+.inf', '.Inf', '.INF', '.iNf', '.NaN'],
  ...['.nan', '.NAN', 'nan', 'inf', 'Infinity', 'NaN', '2026-11-25', '2026-11-25T10:00:00Z'],
  ...['12:30', '1:2', '6h', '30m', 'a: b', 'a:b', 'x:', 'a #b', 'a#b', '#x', 'x - y', '- x'],
  ...['-', '--', '---', '---x', '...', '-x', 'x ', 'é', '日本語', '@x', '`x', '%x', '!x', '&x'],
  ...['*x', '|x', '|', '>x', '>-', '?x', '? x', '[x', '{x', 'x]', 'x}', 'x,y', 'x, y', 'a"b'],
  ...["a'b", "it's", 'C:\\x', 'a\\b', 'https://a.example/x?y=z:w', 'x :y', ',x', ']x', '<<'],
  ...['😀', 'x😀 y', '=', 'a=b', 'a%b', 'a!b', 'a&b', 'a*b', 'a|b', 'a>b', 'a?b', 'a@b'],
  ...['a`b', 'x\ty'],
  ...ODD_SPACE.flatMap((w) => [`a${w}b`, `a${w}`, `${w}a`]),
];
const DQ = ['x', ' ', '\\"', '\\\\', '\\n', '\\t', '\\/', '\\u00e9', '\\x41', '\\ ', '\\0', '\\e'];
const DQ_MORE = ['#', ' #', "'", ': ', '\\', 'é', '\\\t', '\u00a0', '[', ']', ','];
const SQ = ['x', ' ', "''", '"', '\\', '#', ' #', ': ', 'é', '\u00a0', '\\n', ',', ']'];
const KEYS = [
  ...['a', 'b', 'name', 'rules', 'key with space', 'k-1', '-k', 'x.y', 'on', 'yes', 'true'],
  ...['null', '1', '0x1', '.5', 'é', 'a#b', 'a:b', 'a[b', 'a]b', 'a{b}', "a'b", 'a"b', 'k '],
  ...['__proto__', 'constructor', '<<', '~', '- k', '?k', '"q"', "'s'", '"a b"', '"x: y"', ''],
  ...['a\u00a0', '\u00a0a', 'a\u2003b', 'http://x', '😀', 'x😀y'],
  ...['k'.repeat(1024), 'k'.repeat(1025)],
];
const FLOW_ITEMS = [
  ...['a', 'b c', '"b, c"', "'d'", "'it''s'", '"\\u00e9"', '"x\\"y"', '1', '~', 'null', 'true'],
  ...['0x1F', '.inf', '-1', '-a', '- a', 'a:b', 'a: b', '[b]', '[]', '{b: c}', '? a', '*a'],
  ...['!t a', '"a"b', 'a #c', 'a#c', '', ' ', 'a\u00a0', '\u00a0a', 'é', '%', '@a', '.5'],
];
/** The entries of `xs` the plain reader accepts alone, in the context `wrap` gives. */
const accepted = (xs: readonly string[], wrap: (x: string) => string) =>
  xs.filter((x) => readPlainYaml(wrap(x)) !== undefined);
const AFTER = ['', '', '', ' # c', '  #c', '#c', ' #', '   ', ' ', '\u00a0', ' # a: b', '\t# t'];

const TAME = {
  plain: accepted(PLAIN, (x) => `a: ${x}\n`),
  dq: accepted([...DQ, ...DQ_MORE], (x) => `a: "${x}"\n`),
  sq: accepted(SQ, (x) => `a: '${x}'\n`),
  keys: accepted(KEYS, (x) => `${x}: 1\n`),
  flow: accepted(FLOW_ITEMS, (x) => `a: [${x}]\n`),
  after: accepted(AFTER, (x) => `a: b${x}\n`),
};

class Gen {
  private readonly r: () => number;
  readonly lines: string[] = [];
  /** How often a choice may be one the reader refuses alone. */
  private readonly wild: number;
  constructor(seed: number) {
    this.r = seededRandom(seed);
    this.wild = this.pick([0, 0.03, 0.1, 0.3]);
  }
  /** From `all` now and then, else from `tame`. */
  choose(all: readonly string[], tame: readonly string[]): string {
    return this.pick(this.chance(this.wild) ? all : tame);
  }
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  quoted(): string {
    const n = this.int(4);
    if (this.chance(0.5)) {
      const parts = Array.from({ length: n }, () => this.choose([...DQ, ...DQ_MORE], TAME.dq));
      return `"${parts.join('')}"`;
    }
    return `'${Array.from({ length: n }, () => this.choose(SQ, TAME.sq)).join('')}'`;
  }
  flow(): string {
    if (this.chance(this.wild))
      return this.pick(['[]', '[ ]', '[,]', '[a,,b]', '[a]]', '[a]x', '[a']);
    const items = Array.from({ length: 1 + this.int(4) }, () =>
      this.chance(0.3) ? this.quoted() : this.choose(FLOW_ITEMS, TAME.flow),
    );
    const sep = this.pick([', ', ',', ' , ', ',  ']);
    const trail = this.chance(this.wild / 3) ? ',' : '';
    return this.pick(['[', '[ ']).concat(items.join(sep), trail, this.pick([']', ' ]']));
  }
  scalar(): string {
    const x = this.r();
    if (x < 0.5) return this.choose(PLAIN, TAME.plain);
    if (x < 0.75) return this.quoted();
    if (x < 0.85) return this.flow();
    const glue = this.pick([' ', '-', '.', ':', '#', ' - ', '']);
    return `${this.choose(PLAIN, TAME.plain)}${glue}${this.choose(PLAIN, TAME.plain)}`;
  }
  key(): string {
    return this.choose(KEYS, TAME.keys);
  }
  colon(): string {
    return this.chance(1 - this.wild)
      ? this.pick([': ', ': ', ':  '])
      : this.pick([':', ' : ', ':\u00a0']);
  }
  noise(indent: number): void {
    if (this.chance(0.08)) this.lines.push(this.pick(['', '   ', ' '.repeat(indent + 2)]));
    if (this.chance(0.08)) this.lines.push(`${' '.repeat(this.int(indent + 4))}# note: - x`);
  }
  /** A block mapping at `indent`, its first key possibly already opened by `lead`. */
  map(indent: number, depth: number, lead = ' '.repeat(indent)): void {
    const n = 1 + this.int(3);
    for (let k = 0; k < n; k++) {
      this.noise(indent);
      const head = `${k === 0 ? lead : ' '.repeat(indent)}${this.key()}`;
      this.value(head, indent, depth);
    }
  }
  value(head: string, indent: number, depth: number): void {
    const x = this.r();
    if (depth < 3 && x < 0.3) {
      this.lines.push(`${head}:${this.pick(['', '', ' # c', '   '])}`);
      this.noise(indent);
      const step = this.pick([1, 2, 2, 2, 3, 4]);
      if (this.chance(0.5)) this.map(indent + step, depth + 1);
      else this.seq(this.chance(0.3) ? indent : indent + step, depth + 1);
      if (this.chance(this.wild / 5)) this.lines.push(`${' '.repeat(indent + this.int(4))}stray`);
      return;
    }
    if (x < 0.35) {
      this.lines.push(`${head}:${this.pick(['', ' ', ' # empty', ' ~'])}`);
      return;
    }
    this.lines.push(`${head}${this.colon()}${this.scalar()}${this.choose(AFTER, TAME.after)}`);
    if (this.chance(this.wild / 5))
      this.lines.push(`${' '.repeat(indent + 1 + this.int(3))}more text`);
  }
  seq(indent: number, depth: number): void {
    const n = 1 + this.int(3);
    for (let k = 0; k < n; k++) {
      this.noise(indent);
      const pad = ' '.repeat(indent);
      const x = this.r();
      const dash = this.pick(['- ', '- ', '- ', '-  ', '-   ']);
      if (depth < 3 && x < 0.35) this.map(indent + dash.length, depth + 1, `${pad}${dash}`);
      else if (depth < 3 && x < 0.45) {
        this.lines.push(`${pad}-${this.pick(['', ' # c', ' '])}`);
        if (this.chance(1 - this.wild)) {
          const step = this.pick([1, 2, 3]);
          if (this.chance(0.6)) this.map(indent + step, depth + 1);
          else this.seq(indent + step, depth + 1);
        }
      } else if (x < 0.35 + this.wild / 3) this.lines.push(`${pad}- - ${this.scalar()}`);
      else this.lines.push(`${pad}${dash}${this.scalar()}${this.choose(AFTER, TAME.after)}`);
    }
  }
  document(): string {
    if (this.chance(this.wild)) this.lines.push(this.pick(['---', '--- # doc', '%YAML 1.2\n---']));
    if (this.chance(0.1)) this.lines.push('# yaml-language-server: $schema=./schema.json');
    if (this.chance(0.2)) this.lines.push('rules:');
    if (this.chance(0.2) || this.lines.at(-1) === 'rules:')
      this.seq(this.chance(this.wild) ? this.int(3) : 0, 0);
    else this.map(0, 0);
    if (this.chance(this.wild / 2)) this.lines.push(this.pick(['...', '---', '--- x']));
    let text = `${this.lines.join('\n')}${this.chance(0.9) ? '\n' : ''}`;
    if (this.chance(this.wild / 5)) text = text.replace(/\n/g, '\r\n');
    if (this.chance(this.wild / 5)) text = text.replace(' ', '\t');
    if (this.chance(this.wild / 10)) text = `\uFEFF${text}`;
    return text;
  }
}

/** Every path into a value, the value's own included. */
function paths(value: unknown, base: PropertyKey[] = []): PropertyKey[][] {
  const out = [base];
  if (Array.isArray(value))
    for (const [i, v] of value.entries()) out.push(...paths(v, [...base, i]));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...base, k]));
  return out;
}

/** The same value, telling -0 from 0, key order and NaN included. */
function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    same(ka, kb) &&
    ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** `text` as a string literal, every character that is not plain ASCII escaped. */
function literal(text: string): string {
  return JSON.stringify(text).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** What is wrong with the plain reading of `text`, or undefined when it refuses or agrees. */
function divergence(text: string): string | undefined {
  const plain = readPlainYaml(text);
  if (plain === undefined) return undefined;
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  if (doc.errors.length > 0) return `accepted, but yaml says: ${doc.errors[0]!.message}`;
  const want = doc.toJS({ maxAliasCount: 100 });
  const show = (v: unknown) => literal(JSON.stringify(v, (_k, x) => (Object.is(x, -0) ? '-0' : x)));
  if (!same(plain.data, want)) return `plain read ${show(plain.data)}, yaml ${show(want)}`;
  const source = { file: 'r.yaml', doc, lines };
  for (const path of paths(plain.data).filter((p) => p.length > 0))
    for (const atKey of [true, false]) {
      const expected = positionAt(source, path, atKey);
      const got = plainPositionAt(plain.root, 'r.yaml', path, atKey);
      if (got.line !== expected.line || got.col !== expected.col)
        return `${show(path)}${atKey ? ' (key)' : ''} at ${got.line}:${got.col}, yaml ${expected.line}:${expected.col}`;
    }
  // The loader reads `rules:` items one by one through a sink: it must see the same items.
  const items: PlainNode[] = [];
  const root = readPlainTree(text, (item) => items.push(item) > 0);
  const rules = (plain.data as { rules?: unknown } | null)?.rules;
  if (items.length > 0 && (root === undefined || !same(items.map(toJS), rules)))
    return `the rules read one by one are ${show(items.map(toJS))}`;
  return undefined;
}

/** Documents the plain reader once read unlike the library, each with what it got wrong. */
const REGRESSIONS: Array<[string, string]> = [
  ['a no-break space trimmed off the end of a value', 'a: b\u00a0\n'],
  ['a no-break space taken for indentation', 'a:\n  \u00a0b: 1\n'],
  ['U+2028 trimmed off the end of a list item', 'a: [x\u2028]\n'],
  ['an empty list item, placed at its dash', 'a:\n  -\n  - x\n'],
  ['an empty list item after spaces', 'rules:\n - \n - b\n'],
  ['text right after an empty list', 'a: []#c\nb: [ ]x\n'],
  ['a key longer than YAML allows an implicit key', `${'k'.repeat(1025)}: 1\n`],
  ['a long key in a list item', `- ${'k'.repeat(1025)}:\n    b: 1\n`],
];

const RULES_DIR = join(import.meta.dirname, '../../rules');
/** The example rule files and the benchmark's ten files of 1,000 rules each. */
const ORDINARY = [
  ...readdirSync(RULES_DIR)
    .filter((n) => n.endsWith('.yaml'))
    .map((n) => [n, readFileSync(join(RULES_DIR, n), 'utf8')]),
  ...Array.from({ length: 10 }, (_, f) => [`desk-${f}.yaml`, ruleFileText(f * 1000, 1000)]),
] as Array<[string, string]>;

const SEED = 15;
const COUNT = 6000;

describe('readPlainYaml against the yaml library', () => {
  it.each(REGRESSIONS)('reads %s as the library does, or refuses it', (_name, text) => {
    expect(divergence(text), literal(text)).toBeUndefined();
  });

  // Refusing is safe but slow: the files people write must stay on the fast path.
  it.each(ORDINARY)('reads %s itself, every rule one by one', (_name, text) => {
    let count = 0;
    const root = readPlainTree(text, () => ++count > 0);
    expect(root?.kind).toBe('map');
    expect(count).toBe(text.match(/^ {2}- name:/gm)?.length);
    expect(count).toBeGreaterThan(0);
  });

  it.each(ORDINARY.slice(0, -9))('reads %s as the library does', (_name, text) => {
    expect(divergence(text)).toBeUndefined();
  });

  it(`reads ${COUNT} generated documents as the library does, or refuses them`, () => {
    const gen = (i: number) => new Gen(SEED * 100_003 + i).document();
    let read = 0;
    const failures: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const text = gen(i);
      const wrong = divergence(text);
      if (readPlainYaml(text)) read++;
      if (wrong && failures.length < 5) failures.push(`#${i} ${literal(text)}\n  ${wrong}`);
    }
    expect(failures.join('\n\n'), 'documents read unlike the yaml library').toBe('');
    // The generator must reach the reader's accepting paths, or the test proves nothing.
    expect(read).toBeGreaterThan(COUNT / 3);
  });
});
