/**
 * Rule files as people write them, in bulk, for the rule-loading benchmark: notices rules
 * on the simulator's pipelines with types, categories, statuses and `text:` patterns (a
 * few dozen patterns that many rules share, and some of their own), deadline reminders
 * and OAC thresholds, each with one to three targets. Deterministic by index.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PIPELINES } from '../src/simulator/pipelines.js';

const SLUGS = PIPELINES.map((p) => p.slug);
const TYPES = [
  'constraint',
  'force majeure',
  'operational flow order',
  'ofo',
  'maintenance',
  'curtailment',
  'capacity release',
  'gas quality',
  'operational alert',
  'critical period',
  'plnd outage',
];
const SHARED_PATTERNS = [
  'force\\s+majeure|OFO',
  'station \\d+',
  '\\bcompressor\\b',
  'pipeline (rupture|failure)',
  'unplanned|emergency',
  'line \\d{3,4}',
  'storage (field|withdrawal)',
  'curtail(ed|ment)',
  'zone [1-6]\\b',
  'scheduled maintenance.*(postponed|cancelled)',
  'imbalance',
  'interruptible (and|&) secondary',
  'primary firm',
  'hurricane|freeze|winter storm',
  'critical day',
  'pressure (drop|reduction)',
  '\\bmainline\\b',
  'capacity (reduced|reduction)',
  'outage',
  'nomination (deadline|cycle)',
];
const LOCATIONS = ['STATION 85', 'Station 3110', 'Leidy', 'Waha', 'Zone 3', 'Sumas', 'Opal'];
const CYCLES = ['timely', 'evening', 'id1', 'id2', 'id3'];

const pick = <T>(xs: readonly T[], i: number): T => xs[i % xs.length]!;
const flow = (xs: readonly string[]) => `[${xs.map((x) => JSON.stringify(x)).join(', ')}]`;

function targets(i: number): string[] {
  const all = [
    `      - slack: "#gas-desk-${i % 40}"`,
    `      - email: [scheduler${i % 90}@example.com, desk${i % 13}@example.com]`,
    `      - webhook: https://hooks.example.com/pipewatch/${i % 25}`,
    `      - slack_dm: U0${String(100_000 + (i % 500))}`,
    `      - discord: "10${String(1_000_000_000_000_000 + (i % 30))}"`,
  ];
  const count = 1 + (i % 3);
  return Array.from({ length: count }, (_, k) => pick(all, i + k * 2));
}

function filterLines(i: number, indent: string): string[] {
  const out = [
    `${indent}pipelines: ${flow([pick(SLUGS, i), ...(i % 4 === 0 ? [pick(SLUGS, i + 7)] : [])])}`,
  ];
  if (i % 6 !== 0)
    out.push(
      `${indent}types: ${flow([pick(TYPES, i * 7), ...(i % 5 === 0 ? [pick(TYPES, i + 3)] : [])])}`,
    );
  if (i % 3 === 0) out.push(`${indent}categories: [critical]`);
  if (i % 5 === 0) out.push(`${indent}statuses: [initiate, supersede]`);
  if (i % 4 === 1) out.push(`${indent}text: ${JSON.stringify(pick(SHARED_PATTERNS, i * 3))}`);
  else if (i % 17 === 0) out.push(`${indent}text: ${JSON.stringify(`station ${i % 400}\\b`)}`);
  return out;
}

/** The `i`-th rule as YAML lines, under `rules:`. */
export function ruleYaml(i: number): string[] {
  const lines = [`  - name: desk-${i}-${pick(SLUGS, i)}`];
  const kind = i % 20;
  if (kind < 14) {
    lines.push('    notices:', ...filterLines(i, '      '));
    if (i % 2 === 0) lines.push('      on: [new, updated]');
    if (i % 8 === 0) lines.push('      not:', '        statuses: [terminate]');
    else if (i % 8 === 4) lines.push('      not:', '        text: "test notice|disregard"');
  } else if (kind < 17) {
    lines.push(
      '    deadlines:',
      `      field: ${pick(['response_at', 'effective_at', 'end_at'], i)}`,
      `      before: ${pick(['[24h, 2h, 30m]', '2h', '[1d, 4h]', '90m'], i)}`,
      ...filterLines(i, '      '),
    );
  } else {
    lines.push(
      '    capacity:',
      `      pipelines: [${pick(SLUGS, i)}]`,
      `      locations: ${flow([pick(LOCATIONS, i)])}`,
      `      cycles: ${flow(CYCLES.slice(0, 1 + (i % CYCLES.length)))}`,
      i % 2 === 0
        ? `      oac_below: ${10_000 + (i % 50) * 1000}`
        : `      oac_pct_below: ${5 + (i % 30)}`,
    );
    if (i % 3 === 0) lines.push('      repeat_every: 6h');
  }
  lines.push('    notify:', ...targets(i));
  return lines;
}

/** The text of a rule file holding rules `from` to `from + count - 1`. */
export function ruleFileText(from: number, count: number): string {
  const lines = ['# yaml-language-server: $schema=./schema.json', 'rules:'];
  for (let i = from; i < from + count; i++) lines.push(...ruleYaml(i));
  return `${lines.join('\n')}\n`;
}

/** Writes `total` rules into `dir` as `files` files of equal size; returns `dir`. */
export function writeRuleFiles(dir: string, total: number, files: number): string {
  mkdirSync(dir, { recursive: true });
  const per = Math.ceil(total / files);
  for (let f = 0; f < files; f++) {
    const from = f * per;
    const count = Math.min(per, total - from);
    writeFileSync(join(dir, `desk-${String(f).padStart(2, '0')}.yaml`), ruleFileText(from, count));
  }
  return dir;
}
