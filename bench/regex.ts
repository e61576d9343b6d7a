/**
 * `regex`: rules' text patterns under JavaScript's backtracking `RegExp` (how they ran
 * before) and under RE2 (how they run now).
 * - Worst case: each pathological pattern judged on one notice with a hostile subject or
 *   text. RE2 in the daemon's path (`compileFilter`: the first 64 K characters, both
 *   texts); `RegExp` as it ran, on the whole texts, in a worker stopped after `CAP_MS`,
 *   reported as `>CAP_MS` then. Per case in ms, and the worst of each engine.
 * - Ordinary: the simulator's notice history judged against ordinary patterns; the median
 *   time per notice with each pattern alone, and with all of them in one pass (the rule
 *   index's `PatternSet`, formerly one alternation).
 */
import { Worker } from 'node:worker_threads';
import { compileFilter, matchingPatterns, prepareNotice } from '../src/rules/match.js';
import { compilePattern, PatternSet } from '../src/rules/pattern.js';
import { SimulatorCore } from '../src/simulator/core.js';
import { wireNotice } from '../src/simulator/notice-store.js';
import { resolveOptions } from '../src/simulator/options.js';
import { parseRecords } from '../src/upstream/records.js';
import { type Notice, NoticeSchema } from '../src/upstream/schemas.js';
import { ManualClock } from '../test/support/clock.js';

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

/** The median of five RE2 judgements, in the daemon's path. */
function re2Ms(c: Case): number {
  const filter = compileFilter({ text: c.pattern });
  const n = notice(c.subject, c.text);
  const times = Array.from({ length: 5 }, () => {
    const started = performance.now();
    filter(prepareNotice(n));
    return performance.now() - started;
  });
  return round(median(times), 3);
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

/** Median µs per notice of `judge`, each notice judged `repeat` times. */
function perNotice(notices: Notice[], judge: (n: Notice) => unknown, repeat = 20): number {
  for (const n of notices.slice(0, 200)) judge(n);
  const times = notices.map((n) => {
    const started = performance.now();
    for (let i = 0; i < repeat; i++) judge(n);
    return ((performance.now() - started) * 1000) / repeat;
  });
  return round(median(times), 2);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
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
  const started = performance.now();
  compilePattern('(a+)+$').test(megabyte);
  figures.re2_ms_nested_plus_1mb_unbounded = round(performance.now() - started, 2);

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
