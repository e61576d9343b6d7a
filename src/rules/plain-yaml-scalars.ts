/**
 * The one-line pieces of plain YAML: scalars typed as YAML 1.2's core schema types them,
 * quoted text, `[a, b]` lists and `key: value` entries, each with where it starts. Any
 * doubt gives up (`give`), and the file is then read by the `yaml` library.
 */
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
export class Unsupported extends Error {}
/** Gives up on the text: the caller falls back to the `yaml` library. */
export function give(): never {
  throw new Unsupported();
}

const INDICATOR = /^[?:,\]{}#&*!|>%@`]/;
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)(?:[eE][-+]?[0-9]+)?$|^[-+]?[0-9]+[eE][-+]?[0-9]+$/;
/** Plain scalars the core schema reads as something this reader does not resolve itself. */
const OTHER_NUMBER = /^(?:0o|0x|[-+]?\.(?:inf|Inf|INF)$|\.nan$|\.NaN$|\.NAN$)/;

/** A plain scalar's value under YAML 1.2's core schema, as the `yaml` library resolves it. */
export function resolvePlain(text: string): unknown {
  if (NULL.test(text)) return null;
  if (BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
  if (INT.test(text)) return Number.parseInt(text, 10);
  if (FLOAT.test(text)) return Number.parseFloat(text);
  if (OTHER_NUMBER.test(text)) give();
  return text;
}

const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t' };

/** A quoted scalar starting at `at` in `s`: its value and the index after its closing quote. */
export function quoted(s: string, at: number): { value: string; end: number } {
  const q = s[at];
  const close = s.indexOf(q, at + 1);
  if (close < 0) give();
  // Most quoted values have no escape: their text is what stands between the quotes.
  const simple = q === '"' ? s.indexOf('\\', at + 1) : s.indexOf("''", at + 1);
  if (simple < 0 || simple > close) return { value: s.slice(at + 1, close), end: close + 1 };
  let out = '';
  for (let i = at + 1; i < s.length; i++) {
    const c = s[i];
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
export function restIsEmpty(s: string, at: number): boolean {
  let i = at;
  while (s.charCodeAt(i) === 32) i++;
  return i === s.length || (s[i] === '#' && i > at);
}

/** A plain scalar in block context: up to a comment; `key: value` inside it is not plain. */
export function plainText(s: string): string {
  const hash = s.indexOf(' #');
  const text = (hash < 0 ? s : s.slice(0, hash)).trimEnd();
  if (text.includes(': ') || text.endsWith(':') || INDICATOR.test(text)) give();
  if (text[0] === '-' && (text.length === 1 || text[1] === ' ')) give();
  return text;
}

/** A one-line `[a, "b", c]` starting at column `col` of `s`. */
export function flowSeq(s: string, at: number, no: number, base: number): PlainNode {
  const items: PlainNode[] = [];
  let i = at + 1;
  const skip = () => {
    while (s[i] === ' ') i++;
  };
  skip();
  if (s[i] === ']') {
    if (!restIsEmpty(s, i + 1)) give();
    return { kind: 'seq', items, line: no, col: base + at + 1 };
  }
  for (;;) {
    skip();
    const start = i;
    if (s[i] === '"' || s[i] === "'") {
      const q = quoted(s, i);
      items.push({ kind: 'scalar', value: q.value, line: no, col: base + start + 1 });
      i = q.end;
    } else {
      while (i < s.length && !',]'.includes(s[i])) i++;
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
export function inline(s: string, no: number, col: number): PlainNode {
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
export function keyOf(s: string): { key: string; rest: string; restAt: number } | undefined {
  const m = /^([^\s"'[\]{}#&*!|>%@`,?:-][^:#]*?|-[^\s:#][^:#]*?):(?: +|$)/.exec(s);
  if (!m) {
    if (/^["'?]/.test(s)) give();
    return undefined;
  }
  const key = m[1];
  // YAML bounds an implicit key at 1024 characters; `yaml` rejects a longer one.
  if (key.length > 1000 || key !== key.trimEnd() || key === '__proto__' || key === '<<') give();
  if (resolvePlain(key) !== key) give();
  return { key, rest: s.slice(m[0].length), restAt: m[0].length };
}
