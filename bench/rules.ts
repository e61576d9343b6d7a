/**
 * Rule benchmarks.
 * - `rules`: evaluation of 10, 1,000 and 10,000 generated rules over the same 10,000
 *   notices (index lookup, filters, exclusions): time per notice, and the ratio of the
 *   largest to the smallest.
 * - `ingest_with_rules`: the ingest benchmark's sync path with 100 rules deciding and
 *   writing alerts to the outbox in the same transactions, against the plain-insert limit.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlertEngine } from '../src/alerts/engine.js';
import { compileRules } from '../src/alerts/rules.js';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { prepareNotice } from '../src/rules/match.js';
import type { NoticeRule, Rule } from '../src/rules/types.js';
import { Store } from '../src/store/index.js';
import { parseRecords } from '../src/upstream/records.js';
import { type Notice, NoticeSchema } from '../src/upstream/schemas.js';
import { wireNotice } from './fixtures.js';
import { plainInsert } from './ingest.js';

const SLUGS = [
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
const TYPES = [
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
function generatedRule(i: number): NoticeRule {
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

function notices(count: number): Notice[] {
  const context = { method: 'GET', endpoint: '/bench', host: 'bench' };
  const wire = Array.from({ length: count }, (_, i) => {
    const w = wireNotice(i);
    return {
      ...w,
      pipeline_slug: SLUGS[(i * 5) % SLUGS.length],
      type: TYPES[(i * 3) % TYPES.length],
    };
  });
  return parseRecords(NoticeSchema, wire, context, 'data').records;
}

function usPerNotice(rules: Rule[], sample: Notice[]): { us: number; fired: number } {
  const compiled = compileRules(rules);
  let fired = 0;
  const evaluate = () => {
    for (const notice of sample) {
      const n = prepareNotice(notice);
      for (const m of compiled.notices.matches(n)) if (!m.excluded) fired += m.group.rules.length;
    }
  };
  evaluate();
  fired = 0;
  const started = performance.now();
  evaluate();
  const us = ((performance.now() - started) * 1000) / sample.length;
  return { us: Math.round(us * 100) / 100, fired: Math.round((fired / sample.length) * 10) / 10 };
}

/** Rule evaluation figures. */
export async function rulesBench(): Promise<Record<string, number>> {
  const sample = notices(10_000);
  const figures: Record<string, number> = {};
  for (const count of [10, 1_000, 10_000]) {
    const { us, fired } = usPerNotice(
      Array.from({ length: count }, (_, i) => generatedRule(i)),
      sample,
    );
    figures[`us_per_notice_${count}`] = us;
    figures[`rules_fired_per_notice_${count}`] = fired;
  }
  figures.scaling_10000_over_10 =
    Math.round((figures.us_per_notice_10000! / figures.us_per_notice_10!) * 100) / 100;
  return figures;
}

/** Ingest with 100 rules deciding in the same transactions. */
export async function ingestWithRulesBench(): Promise<Record<string, number>> {
  const total = 100_000;
  const perPage = 20;
  const store = Store.open(mkdtempSync(join(tmpdir(), 'pipewatch-bench-')));
  const rules = Array.from({ length: 100 }, (_, i) => generatedRule(i));
  const engine = new AlertEngine(
    { store, clock: systemClock, logger: silentLogger, maxAlertAgeMs: 1e12 },
    rules,
  );
  const hooks = engine.hooks();
  const context = { method: 'GET', endpoint: '/ip/notices', host: 'bench' };
  const started = performance.now();
  for (let p = 0; p < total / perPage; p++) {
    const text = JSON.stringify({
      status: 'success',
      data: Array.from({ length: perPage }, (_, k) => {
        const i = p * perPage + k;
        return {
          ...wireNotice(i),
          pipeline_slug: SLUGS[(i * 5) % SLUGS.length],
          type: TYPES[(i * 3) % TYPES.length],
        };
      }),
    });
    const { records } = parseRecords(
      NoticeSchema,
      (JSON.parse(text) as { data: unknown }).data,
      context,
      'data',
    );
    ingestNoticePage(store, records, {
      seenAt: '2026-11-20T15:00:00Z',
      baseline: false,
      alertableAfter: '2000-01-01T00:00:00Z',
      pipelines: new Set(),
      hooks,
    });
  }
  const rate = total / ((performance.now() - started) / 1000);
  const alerts = store.outbox.counts().pending;
  store.close();
  const limit = plainInsert();
  return { rows_per_s: Math.round(rate), ratio: Math.round((rate / limit) * 100) / 100, alerts };
}
