/**
 * Rule benchmarks.
 * - `rules`: evaluation of 10, 1,000 and 10,000 generated rules over the same 10,000
 *   notices (index lookup, filters, exclusions): time per notice (the median of 7 passes,
 *   the rule sets taking turns), and the ratio of the largest to the smallest. With them,
 *   the first 10 of those rules plus 10,000 subscriptions made as people make them
 *   (`subscriptions.ts`: `/pipewatch subscribe` words through the chat core into a real
 *   Store in a temp dir), read back through `AlertEngine`, which parses each with the
 *   rule schema (`subscriptionRules`) and compiles them with the file rules: time per
 *   notice and its ratio to 10 rules alone, and the same with the subscriptions' `text:`
 *   patterns left out (`…_without_text`), which shows what the patterns cost. Timed per
 *   notice: preparing it and finding the rule groups that match it (`matches`); not
 *   timed: what deciding does with a match.
 *   And what putting subscriptions in force costs: `subscriptions_load_ms_10000`, a fresh
 *   process constructing the engine on the 10,000 stored (reading the rows, parsing each,
 *   compiling everything; loading modules and opening the database not included), as a
 *   daemon start pays, median of 3 processes; `subscriptions_reload_ms_10000`, in this
 *   warm process, what the engine pays once one more subscription is stored (reading
 *   every row again, parsing the new one, compiling everything), as the next ingest page
 *   or reminder run pays it, median of 5.
 *   Those figures are warm: 120 combinations of fields, each judged once and then
 *   remembered. `rules-judge.ts` adds cold and warm figures over the simulator's notices
 *   against 10,000 rules from rule files, and the engine's decisions with their writes;
 *   `rules-load.ts` what loading those 10,000 rules costs a fresh process.
 * - `ingest_with_rules`: the ingest benchmark's storing of notices with 100 rules deciding
 *   and writing alerts to the outbox in the same transactions, against the plain-insert
 *   limit of the same notices. Both sides run the same harness (`secondsStoring`): each
 *   page is generated and parsed just before it is stored, and only storing is timed.
 *   The same on PostgreSQL beside it (`postgres_…`, as in `ingest`).
 */

import { rmSync } from 'node:fs';
import { AlertEngine } from '../src/alerts/engine.js';
import { compileRules } from '../src/alerts/rules.js';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { prepareNotice } from '../src/rules/match.js';
import type { NoticeRule, Rule } from '../src/rules/types.js';
import { parseRecords } from '../src/upstream/records.js';
import { type Notice, NoticeSchema } from '../src/upstream/schemas.js';
import { wireNotice } from './fixtures.js';
import {
  type BenchDatabases,
  inRounds,
  postgresDatabases,
  secondsStoringAsync,
  sqliteDatabases,
  timedOn,
  type WireNotice,
} from './ingest.js';
import { judgeFigures } from './rules-judge.js';
import { rulesLoadFigures } from './rules-load.js';
import { coldLoad, storedSubscriptions } from './subscriptions.js';

export const SLUGS = [
  'transco',
  'texas-eastern',
  'tennessee',
  'columbia',
  'anr',
  'ngpl',
  'northern-natural',
  'gulf-south',
  'algonquin',
  'equitrans',
  'eastern-gas',
  'east-tennessee',
  'southern-natural',
  'texas-gas',
  'iroquois',
  'transwestern',
  'florida-gas',
  'panhandle',
  'el-paso',
  'southern-star',
  'kern-river',
  'northwest',
  'great-lakes',
  'rockies-express',
];
export const TYPES = [
  'Capacity Constraint',
  'Force Majeure',
  'Operational Flow Order',
  'Maintenance',
  'Curtailment',
  'Capacity Release',
  'Computer System Status',
  'Gas Quality',
  'Operational Alert',
  'Imbalance Trading',
  'Plnd Outage',
  'Sched Alert',
  'Critical period',
  'Customer Services Update',
  'Location Change',
  'Phone List',
  'Bump',
  'Cash Out',
  'Emergency Deviations',
  'Other',
];

/** A varied rule: most name a pipeline and a type, some a category, status or text. */
export function generatedRule(i: number): NoticeRule {
  const filter: NoticeRule['filter'] = {};
  if (i % 10 !== 0) filter.pipelines = [SLUGS[i % SLUGS.length]!];
  if (i % 7 !== 0) filter.types = [TYPES[(i * 7) % TYPES.length]!.toLowerCase()];
  if (i % 3 === 0) filter.categories = ['critical'];
  if (i % 5 === 0) filter.statuses = ['initiate', 'supersede'];
  if (i % 11 === 0) filter.text = `station ${i % 300}\\b`;
  return {
    kind: 'notices',
    name: `rule-${i}`,
    at: { file: 'bench', line: i + 1, col: 1 },
    filter,
    ...(i % 4 === 0 ? { not: { statuses: ['terminate'] } } : {}),
    on: ['new'],
    notify: [{ kind: 'console' }],
  };
}

/** The `i`-th benchmark notice, its pipeline and type spread over the rules' vocabulary. */
const variedNotice: WireNotice = (i) => ({
  ...wireNotice(i),
  pipeline_slug: SLUGS[(i * 5) % SLUGS.length]!,
  type: TYPES[(i * 3) % TYPES.length]!,
});

function notices(count: number): Notice[] {
  const context = { method: 'GET', endpoint: '/bench', host: 'bench' };
  const wire = Array.from({ length: count }, (_, i) => variedNotice(i));
  return parseRecords(NoticeSchema, wire, context, 'data').records;
}

const PASSES = 7;
const round2 = (n: number) => Math.round(n * 100) / 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Microseconds per notice of each rule set, and rules fired per notice: one pass each to
 * warm up, then `PASSES` rounds in which every set takes a pass in turn, so that a change
 * in the machine's load falls on all of them alike; the median pass of each.
 */
function usPerNotice(
  sets: Record<string, readonly Rule[]>,
  sample: Notice[],
): Record<string, { us: number; fired: number }> {
  const runs = Object.entries(sets).map(([name, rules]) => ({
    name,
    compiled: compileRules(rules),
    passes: [] as number[],
    fired: 0,
  }));
  const pass = (run: (typeof runs)[number]) => {
    let fired = 0;
    const started = performance.now();
    for (const notice of sample) {
      const n = prepareNotice(notice);
      for (const m of run.compiled.notices.matches(n))
        if (!m.excluded) fired += m.group.rules.length;
    }
    run.fired = fired;
    return ((performance.now() - started) * 1000) / sample.length;
  };
  for (const run of runs) pass(run);
  for (let round = 0; round < PASSES; round++) for (const run of runs) run.passes.push(pass(run));
  return Object.fromEntries(
    runs.map((r) => [
      r.name,
      { us: round2(median(r.passes)), fired: Math.round((r.fired / sample.length) * 10) / 10 },
    ]),
  );
}

/** Rule evaluation figures. */
export async function rulesBench(): Promise<Record<string, number>> {
  const sample = notices(10_000);
  const subscribed = await storedSubscriptions(fileRules());
  const sets: Record<string, readonly Rule[]> = {};
  for (const count of [10, 1_000, 10_000])
    sets[count] = Array.from({ length: count }, (_, i) => generatedRule(i));
  sets['10_plus_10000_subscriptions'] = await subscribed.engine.rules();
  sets['10_plus_10000_subscriptions_without_text'] = (await subscribed.engine.rules()).map(
    withoutText,
  );
  const figures: Record<string, number> = {};
  for (const [name, { us, fired }] of Object.entries(usPerNotice(sets, sample))) {
    figures[`us_per_notice_${name}`] = us;
    figures[`rules_fired_per_notice_${name}`] = fired;
  }
  const per10 = figures.us_per_notice_10!;
  figures.scaling_10000_over_10 = round2(figures.us_per_notice_10000! / per10);
  figures.subscriptions_over_10 = round2(
    figures.us_per_notice_10_plus_10000_subscriptions! / per10,
  );
  figures.subscriptions_reload_ms_10000 = round2(median(await subscribed.reloads()));
  subscribed.store.close();
  const loads = [0, 1, 2].map(() => coldLoad(subscribed.dir));
  rmSync(subscribed.dir, { recursive: true, force: true });
  figures.subscriptions_load_ms_10000 = round2(median(loads));
  return { ...figures, ...judgeFigures(), ...rulesLoadFigures() };
}

/** A rule with its `text:` pattern left out: what the patterns cost, by their absence. */
function withoutText(rule: Rule): Rule {
  if (rule.kind !== 'notices' || rule.filter.text === undefined) return rule;
  const { text: _text, ...filter } = rule.filter;
  return { ...rule, filter };
}

/** The 10 file rules the subscriptions come on top of. */
export function fileRules(): Rule[] {
  return Array.from({ length: 10 }, (_, i) => generatedRule(i));
}

/**
 * Ingest with 100 rules deciding in the same transactions, through the harness the
 * plain-insert limit uses (`secondsStoring`): each page made and parsed just before it is
 * stored, outside the time, as a sync reads a page and stores it. The limit inserts the
 * same notices; each figure is the median of the rounds of `inRounds`.
 */
export async function ingestWithRulesBench(): Promise<Record<string, number | string>> {
  let alerts = 0;
  const figures = await inRounds(
    async () => {
      const { rates, found } = await withRules(sqliteDatabases);
      alerts = found;
      return rates;
    },
    variedNotice,
    async (server) => (await withRules(postgresDatabases(server))).rates,
  );
  return { ...figures, alerts };
}

/**
 * Stores the notices of a round with 100 rules deciding, on a fresh database of `open`:
 * the rates, and how many alerts the outbox holds after.
 */
function withRules(open: BenchDatabases) {
  return timedOn(open, async ({ store, rows }) => {
    const rules = Array.from({ length: 100 }, (_, i) => generatedRule(i));
    const engine = new AlertEngine(
      { store, clock: systemClock, logger: silentLogger, maxAlertAgeMs: 1e12 },
      rules,
    );
    const hooks = engine.hooks();
    const spent = await secondsStoringAsync(
      async (records) => {
        await ingestNoticePage(store, records, {
          seenAt: '2026-11-20T15:00:00Z',
          baseline: false,
          alertableAfter: '2000-01-01T00:00:00Z',
          pipelines: new Set(),
          hooks,
        });
      },
      variedNotice,
      rows,
    );
    if ((await store.notices.count()) !== rows) throw new Error('ingest with rules lost rows');
    return { spent, rows, found: (await store.outbox.counts()).pending };
  });
}
