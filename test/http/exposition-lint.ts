/**
 * The naming rules `promtool check metrics` applies to Prometheus exposition text,
 * written out so that a machine without promtool checks them too: HELP and TYPE for every
 * family, `_total` on counters and on nothing else, `_bucket`/`_sum`/`_count` only as
 * histogram or summary series, `le` and `quantile` only where they belong, snake_case
 * names, no type in the name, base units spelt out as suffixes.
 */

/** One rule broken by one metric family. */
export interface LintProblem {
  metric: string;
  text: string;
}

interface Family {
  type: string | undefined;
  help: boolean;
  labels: Set<string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const CAMEL = /[a-z][A-Z]/;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
/** Units Prometheus wants in their base form: the name's unit → the base unit. */
const UNITS: Record<string, string> = {
  amperes: 'amperes',
  bytes: 'bytes',
  celsius: 'celsius',
  grams: 'grams',
  joules: 'joules',
  kelvin: 'kelvin',
  meters: 'meters',
  metres: 'metres',
  seconds: 'seconds',
  volts: 'volts',
  minutes: 'seconds',
  hours: 'seconds',
  days: 'seconds',
  weeks: 'seconds',
  kelvins: 'kelvin',
  fahrenheit: 'celsius',
  rankine: 'celsius',
  inches: 'meters',
  yards: 'meters',
  miles: 'meters',
  bits: 'bytes',
  calories: 'joules',
  pounds: 'grams',
  ounces: 'grams',
};
const UNIT_PREFIXES = [
  'pico',
  'nano',
  'micro',
  'milli',
  'centi',
  'deci',
  'deca',
  'hecto',
  'kilo',
  'kibi',
  'mega',
  'mibi',
  'giga',
  'gibi',
  'tera',
  'tebi',
  'peta',
  'pebi',
];
const ABBREVIATIONS = [
  's',
  'ms',
  'us',
  'ns',
  'sec',
  'b',
  'kb',
  'mb',
  'gb',
  'tb',
  'pb',
  'm',
  'h',
  'd',
];

/** `_word_` inside the name or `_word` at its end. */
function hasWord(name: string, word: string): boolean {
  const n = name.toLowerCase();
  return n.includes(`_${word}_`) || n.endsWith(`_${word}`);
}

function unitProblem(name: string): string | undefined {
  for (const part of name.split('_')) {
    for (const prefix of ['', ...UNIT_PREFIXES]) {
      if (!part.startsWith(prefix)) continue;
      const base = UNITS[part.slice(prefix.length)];
      if (base === undefined) continue;
      return part === base ? undefined : `use base unit "${base}" instead of "${part}"`;
    }
  }
  return undefined;
}

function familyProblems(name: string, family: Family): string[] {
  const problems: string[] = [];
  const { type } = family;
  if (!family.help) problems.push('no help text');
  if (type === undefined) problems.push('no TYPE line');
  if (!NAME.test(name)) problems.push('not a valid metric name');
  if (name.includes(':')) problems.push("metric names should not contain ':'");
  if (CAMEL.test(name))
    problems.push("metric names should be written in 'snake_case' not 'camelCase'");
  const unit = unitProblem(name);
  if (unit) problems.push(unit);
  for (const t of TYPES.filter((t) => t !== 'untyped')) {
    if (hasWord(name, t)) problems.push(`metric name should not include type '${t}'`);
  }
  if (ABBREVIATIONS.some((a) => hasWord(name, a))) {
    problems.push('metric names should not contain abbreviated units');
  }
  if (type !== undefined && type !== 'untyped') {
    const total = name.endsWith('_total');
    if (type === 'counter' && !total) problems.push('counter metrics should have "_total" suffix');
    if (type !== 'counter' && total) {
      problems.push('non-counter metrics should not have "_total" suffix');
    }
    const histogram = type === 'histogram';
    const summary = type === 'summary';
    if (!histogram && name.endsWith('_bucket')) {
      problems.push('non-histogram metrics should not have "_bucket" suffix');
    }
    for (const suffix of ['_count', '_sum']) {
      if (!histogram && !summary && name.endsWith(suffix)) {
        problems.push(`non-histogram and non-summary metrics should not have "${suffix}" suffix`);
      }
    }
    if (!histogram && family.labels.has('le')) {
      problems.push('non-histogram metrics should not have "le" label');
    }
    if (!summary && family.labels.has('quantile')) {
      problems.push('non-summary metrics should not have "quantile" label');
    }
    if (type !== 'gauge' && name.endsWith('_timestamp_seconds')) {
      problems.push('non-gauge metrics should not have "_timestamp_seconds" suffix');
    }
  }
  for (const label of family.labels) {
    if (CAMEL.test(label))
      problems.push("label names should be written in 'snake_case' not 'camelCase'");
  }
  return problems;
}

/** The family a sample belongs to: itself, or a histogram's or summary's series. */
function familyOf(sample: string, families: Map<string, Family>): string {
  for (const [suffix, types] of [
    ['_bucket', ['histogram']],
    ['_sum', ['histogram', 'summary']],
    ['_count', ['histogram', 'summary']],
  ] as const) {
    if (!sample.endsWith(suffix)) continue;
    const base = sample.slice(0, -suffix.length);
    const type = families.get(base)?.type;
    if (type !== undefined && (types as readonly string[]).includes(type)) return base;
  }
  return sample;
}

/** Every naming problem of an exposition text, one per family and rule. */
export function lintExposition(text: string): LintProblem[] {
  const families = new Map<string, Family>();
  const family = (name: string): Family => {
    let f = families.get(name);
    if (!f) {
      f = { type: undefined, help: false, labels: new Set() };
      families.set(name, f);
    }
    return f;
  };
  const problems: LintProblem[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, kind, name = '', rest = ''] = meta;
      if (kind === 'HELP') family(name).help = true;
      else family(name).type = rest.trim();
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = /^([^\s{]+)(?:\{(.*)\})?\s+\S+/.exec(line);
    if (!sample) {
      problems.push({ metric: line, text: 'not a sample line' });
      continue;
    }
    const [, name = '', labels = ''] = sample;
    const f = family(familyOf(name, families));
    for (const [, label] of labels.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) {
      if (label) f.labels.add(label);
    }
  }
  for (const [name, f] of families) {
    for (const text of familyProblems(name, f)) problems.push({ metric: name, text });
  }
  return problems;
}
