/**
 * `regex`: rules' text patterns under JavaScript's backtracking `RegExp` (how they ran
 * before) and under RE2's automata (`re2_…`: RE2JS now, see docs/PATTERN-ENGINE.md).
 * - Worst case: each pathological pattern judged on one notice with a hostile subject or
 *   text. RE2JS in the daemon's path (`compileFilter`: the first 64 K characters, both
 *   texts), CPU ms, median of 5; `RegExp` as it ran, on the whole texts, in a worker
 *   stopped after `CAP_MS`, wall ms, reported as `>CAP_MS` then. Per case, and the worst
 *   of each engine.
 * - Linearity: `(a+)+$` and `(x+x+)+y` at 100 K and 400 K characters (about 4 times the
 *   cost for a linear engine); an automaton of about 1,000 instructions (half
 *   `PROGRAM_LIMIT`) over 64 K characters that keep every thread of it alive; 1,000
 *   patterns in one set over a 64 K text, and asked one by one.
 * - Ordinary: the simulator's notice history judged against ordinary patterns; the median
 *   CPU time per notice with each pattern alone, and with all of them in one pass (the
 *   rule index's `PatternSet`, formerly one alternation).
 */
import { Worker } from 'node:worker_threads';
import { compileFilter, matchingPatterns, prepareNotice } from '../src/rules/match.js';
import { compilePattern, PatternSet, patternText, TEXT_LIMIT } from '../src/rules/pattern.js';
import { SimulatorCore } from '../src/simulator/core.js';
import { wireNotice } from '../src/simulator/notice-store.js';
import { resolveOptions } from '../src/simulator/options.js';
import { parseRecords } from '../src/upstream/records.js';
import { type Notice, NoticeSchema } from '../src/upstream/schemas.js';
import { ManualClock } from '../test/support/clock.js';
import { median } from './median.js';

/** How long a `RegExp` case may run before it is stopped. */
const CAP_MS = 20_000;

interface Case {
  name: string;
  pattern: string;
  subject: string;
  text: string;
}

/** Patterns that backtrack for ever on the right text, each with such a text. */
const HOSTILE: Case[] = [
  { name: 'nested_plus', pattern: '(a+)+$', subject: `${'a'.repeat(30)}!`, text: 'Limited.' },
  { name: 'alternation_star', pattern: '(a|a)*b', subject: 'a'.repeat(32), text: '' },
  {
    name: 'dotstar_repeat',
    pattern: '(.*a){20}',
    subject: `${'a'.repeat(19)}${'b'.repeat(200)}`,
    text: '',
  },
  {
    name: 'force_majeure_300kb',
    pattern: 'force.*majeure',
    subject: 'Update',
    text: 'force '.repeat(50_000),
  },
  {
    name: 'trailing_space_100kb',
    pattern: '\\s+$',
    subject: 'Update',
    text: `${' '.repeat(100_000)}x`,
  },
  {
    name: 'nested_words',
    pattern: '^(\\w+\\s?)*$',
    subject: 'Capacity constraint at station one hundred sixty five!',
    text: '',
  },
  { name: 'nested_digits', pattern: '^(\\d+)*$', subject: `${'1'.repeat(32)}a`, text: '' },
];

/** Patterns rule writers use. */
const ORDINARY = [
  'force majeure|OFO',
  'station 16\\d',
  '\\bcompressor\\b.{0,40}\\b(outage|maintenance)\\b',
  'limit(ed|ing)? (interruptible|secondary)',
  '^(capacity|maintenance)',
  'gas day \\d{4}-\\d{2}-\\d{2}',
  'critical',
  'supersedes? notice',
  'pipe\\s?line rupture',
  'operational flow order',
];

const WORKER = `
const { parentPort, workerData: d } = require('node:worker_threads');
const re = new RegExp(d.pattern, 'i');
const started = performance.now();
re.test(d.subject) || re.test(d.text);
parentPort.postMessage(performance.now() - started);
`;

/** One `RegExp` judgement as it ran before, in a worker; `>CAP_MS` when stopped. */
function regexpMs(c: Case): Promise<number | string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: c });
    const timer = setTimeout(() => {
      worker.terminate().then(() => resolve(`>${CAP_MS}`), reject);
    }, CAP_MS);
    worker.once('error', reject);
    worker.once('message', (ms: number) => {
      clearTimeout(timer);
      worker.terminate().then(() => resolve(round(ms, 2)), reject);
    });
  });
}

function notice(subject: string, text: string): Notice {
  return { ...realistic()[0]!, subject, notice: text };
}

/** CPU milliseconds `work` takes in this process (other processes on the machine do not count). */
function cpuMs(work: () => unknown): number {
  const started = process.cpuUsage();
  work();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/** The median of five RE2 judgements, in the daemon's path, in CPU ms. */
function re2Ms(c: Case): number {
  const filter = compileFilter({ text: c.pattern });
  const n = notice(c.subject, c.text);
  const times = Array.from({ length: 5 }, () => cpuMs(() => filter(prepareNotice(n))));
  return round(median(times), 3);
}

/** The median of five CPU-ms runs of `work`. */
function medianCpuMs(work: () => unknown): number {
  return round(median(Array.from({ length: 5 }, () => cpuMs(work))), 2);
}

/**
 * Hostile inputs past the daemon's 64 K cut, at sizes n and 4n: a linear engine costs
 * about 4 times more on the larger (`…_ratio`), a backtracking one exponentially more.
 */
function linearity(figures: Record<string, number | string>): void {
  const cases: Array<[string, string, (n: number) => string]> = [
    ['nested_plus', '(a+)+$', (n) => `${'a'.repeat(n)}!`],
    ['x_plus_x_plus_y', '(x+x+)+y', (n) => 'x'.repeat(n)],
  ];
  for (const [name, source, text] of cases) {
    const pattern = compilePattern(source);
    const small = text(100_000);
    const large = text(400_000);
    const [a, b] = [medianCpuMs(() => pattern.test(small)), medianCpuMs(() => pattern.test(large))];
    figures[`re2_ms_${name}_100k`] = a;
    figures[`re2_ms_${name}_400k`] = b;
  }
  // An automaton of half the size limit, every thread alive to the end: near the worst a pattern costs.
  let text = '';
  for (let i = 0, x = 1; i < TEXT_LIMIT; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    text += (x >> 16) & 1 ? 'a' : 'b';
  }
  const large = compilePattern('a[ab]{990}c');
  figures.re2_ms_large_automaton_64k = medianCpuMs(() => large.test(patternText(text)));
  // A thousand patterns at once over one 64 K text, as the rule index asks them.
  const sources = Array.from({ length: 1000 }, (_, i) => `station ${i}\\b|gas day ${i} `);
  let set: PatternSet | null = null;
  figures.re2_ms_set_1000_compile = round(
    cpuMs(() => (set = PatternSet.of(sources))),
    2,
  );
  const body = patternText(
    'Capacity at station 1650 is limited for gas day 2026-11-21; nominations due. '.repeat(900),
  );
  figures.re2_ms_set_1000_64k = set ? medianCpuMs(() => set!.match(body)) : 'no set';
  figures.re2_ms_1000_alone_64k = medianCpuMs(() =>
    sources.map((s) => compilePattern(s).test(body)),
  );
}

let history: Notice[] | undefined;

/** The simulator's notice history, as the client normalises it. */
function realistic(): Notice[] {
  if (history) return history;
  const start = new Date('2026-11-20T15:00:00Z');
  const core = new SimulatorCore(
    resolveOptions({ seed: 1, startAt: start, clock: new ManualClock(start) }),
  );
  const context = { method: 'GET', endpoint: '/ip/notices', host: 'bench' };
  history = parseRecords(NoticeSchema, core.store.list().map(wireNotice), context, 'data').records;
  return history;
}

/** Median CPU µs per notice of `judge`, each notice judged `repeat` times. */
function perNotice(notices: Notice[], judge: (n: Notice) => unknown, repeat = 20): number {
  for (const n of notices.slice(0, 200)) judge(n);
  const times = notices.map((n) => {
    const started = process.cpuUsage();
    for (let i = 0; i < repeat; i++) judge(n);
    const used = process.cpuUsage(started);
    return (used.user + used.system) / repeat;
  });
  return round(median(times), 2);
}

function round(value: number, digits: number): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}

function worst(values: Array<number | string>): number | string {
  const capped = values.find((v) => typeof v === 'string');
  return capped ?? Math.max(...(values as number[]));
}

/** The figures. */
export async function regexBench(): Promise<Record<string, number | string>> {
  const figures: Record<string, number | string> = { cap_ms: CAP_MS };
  const before: Array<number | string> = [];
  const now: number[] = [];
  for (const c of HOSTILE) {
    const ms = await regexpMs(c);
    const re2 = re2Ms(c);
    figures[`regexp_ms_${c.name}`] = ms;
    figures[`re2_ms_${c.name}`] = re2;
    before.push(ms);
    now.push(re2);
  }
  figures.regexp_worst_ms = worst(before);
  figures.re2_worst_ms = Math.max(...now);
  const megabyte = `${'a'.repeat(1 << 20)}!`;
  figures.re2_ms_nested_plus_1mb_unbounded = round(
    cpuMs(() => compilePattern('(a+)+$').test(megabyte)),
    2,
  );
  linearity(figures);

  const notices = realistic();
  figures.notices = notices.length;
  figures.ordinary_patterns = ORDINARY.length;
  const regexps = ORDINARY.map((p) => new RegExp(p, 'i'));
  figures.regexp_median_us_per_notice = perNotice(notices, (n) =>
    regexps.map((re) => re.test(n.subject) || re.test(n.notice)),
  );
  const filters = ORDINARY.map((p) => compileFilter({ text: p }));
  figures.re2_median_us_per_notice = perNotice(notices, (n) => {
    const prepared = prepareNotice(n);
    return filters.map((f) => f(prepared));
  });
  const alternation = new RegExp(ORDINARY.map((p) => `(?:${p})`).join('|'), 'i');
  figures.regexp_one_pass_median_us_per_notice = perNotice(
    notices,
    (n) => alternation.test(n.subject) || alternation.test(n.notice),
  );
  const set = PatternSet.of(ORDINARY)!;
  figures.re2_one_pass_median_us_per_notice = perNotice(notices, (n) =>
    matchingPatterns(set, prepareNotice(n)),
  );
  return figures;
}
