import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineCounter, parseDocument } from 'yaml';
import { ruleFileText } from '../../bench/rule-files.js';
import { positionAt } from '../../src/rules/issues.js';
import { plainPositionAt, readPlainYaml } from '../../src/rules/plain-yaml.js';

/** Every path into a value, the value's own included. */
function paths(value: unknown, base: PropertyKey[] = []): PropertyKey[][] {
  const out = [base];
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      out.push(...paths(v, [...base, i]));
    });
  } else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...base, k]));
  return out;
}

/** The plain reader and the `yaml` library agree on the value and on every position. */
function expectSameAsYaml(text: string): void {
  const plain = readPlainYaml(text);
  expect(plain, text).toBeDefined();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  expect(doc.errors).toEqual([]);
  expect(plain!.data).toEqual(doc.toJS());
  const source = { file: 'r.yaml', doc, lines };
  for (const path of paths(plain!.data).filter((p) => p.length > 0)) {
    for (const atKey of [true, false]) {
      const want = positionAt(source, path, atKey);
      const empty = doc.getIn(path as never) === null;
      if (empty) continue;
      expect(plainPositionAt(plain!.root, 'r.yaml', path, atKey), JSON.stringify(path)).toEqual(
        want,
      );
    }
  }
}

const RULES_DIR = join(import.meta.dirname, '../../rules');

describe('readPlainYaml', () => {
  it('reads the example rule files as the yaml library does, values and positions', () => {
    for (const name of readdirSync(RULES_DIR).filter((n) => n.endsWith('.yaml')))
      expectSameAsYaml(readFileSync(join(RULES_DIR, name), 'utf8'));
  });

  it('reads generated rule files of every kind as the yaml library does', () => {
    expectSameAsYaml(ruleFileText(0, 200));
  });

  it.each([
    [
      'quoted scalars, escapes and comments',
      'a: "x\\"y\\\\z" # c\nb: \'it\'\'s\'\nc: "#no comment"\n',
    ],
    [
      'scalars typed by the core schema',
      'a: 12\nb: -3.5\nc: true\nd: ~\ne: null\nf: 1e3\ng: on\nh: 007\ni:\n',
    ],
    ["a list at the key's indentation", 'a:\n- 1\n- x\nb: [ p , "q r", 3 ]\nc: []\n'],
    [
      'nested lists and mappings',
      'r:\n  - a: 1\n    b:\n      - c: [x]\n        d: y\n  -\n    e: f\n  - plain text\n',
    ],
    ['urls and colons inside values', 'w: https://hooks.example.com/a?b=c:d\n'],
  ])('reads %s as the yaml library does', (_name, text) => {
    expectSameAsYaml(text);
  });

  it.each([
    ['anchors and aliases', 'a: &x 1\nb: *x\n'],
    ['block scalars', 'a: |\n  x\n'],
    ['multi-line plain scalars', 'a: x\n  y\n'],
    ['tags', 'a: !!str 1\n'],
    ['duplicate keys', 'a: 1\na: 2\n'],
    ['tabs', 'a:\t1\n'],
    ['hexadecimal numbers', 'a: 0x1F\n'],
    ['flow mappings', 'a: {b: 1}\n'],
    ['a key with a space before its colon', 'a : 1\n'],
    ['several documents', 'a: 1\n---\nb: 2\n'],
    ['a mapping inside a plain value', 'a: b: c\n'],
    ['an unclosed quote', 'a: "x\n'],
    ['an unknown escape', 'a: "\\x41"\n'],
    ['a list split over lines', 'a: [x,\n  y]\n'],
    ['a top-level scalar', 'hello\n'],
    ['a key that is not text', '1: a\n'],
  ])('leaves %s to the yaml library', (_name, text) => {
    expect(readPlainYaml(text)).toBeUndefined();
  });
});
