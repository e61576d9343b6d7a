import { asyncStoreOf } from '../src/store/async-sqlite.js';
/**
 * Rule judging over realistic notices: the simulator's generated history (every
 * pipeline's own labels for type, category and status, hundreds of distinct combinations),
 * in the order they arrived, against 10,000 rules read from rule files as people write
 * them (`rule-files.ts`).
 * - `us_per_notice_cold_10000`: freshly compiled rules, so each combination of pipeline,
 *   type, category and status is judged against the index on first sight (as after a
 *   start or a reload), then the text patterns; per notice, median of `PASSES`.
 * - `us_per_notice_warm_10000`: the same notices again on the same compiled rules, every
 *   combination remembered: only preparing the notice and the text patterns.
 * - `us_per_notice_with_writes_10000`: what `AlertEngine` does per new notice inside
 *   ingest's transaction, on a real SQLite file in a temp dir: matching, silences, the
 *   audit rows and the outbox rows of every alert (the hook's time, not the notice's own
 *   upsert), with `alerts_per_notice_10000`.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlertEngine } from '../src/alerts/engine.js';
import { compileRules } from '../src/alerts/rules.js';
import type { NoticeEvent } from '../src/ingest/events.js';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { loadRules } from '../src/rules/loader.js';
import { fieldsKey, prepareNotice } from '../src/rules/match.js';
import type { Rule } from '../src/rules/types.js';
import { Store } from '../src/store/index.js';
import type { Notice } from '../src/upstream/schemas.js';
import { median } from './median.js';
import { writeRuleFiles } from './rule-files.js';
import { simulatorNotices } from './simulator-notices.js';

const PASSES = 5;
const NOTICES = 10_000;
/** Notices decided with writes: enough for a steady figure, few enough to keep the outbox small. */
const WRITTEN = 2_000;
const round2 = (n: number) => Math.round(n * 100) / 100;

/** 10,000 rules as the loader reads them from rule files. */
export function fileRules10000(): Rule[] {
  const dir = writeRuleFiles(mkdtempSync(join(tmpdir(), 'pipewatch-rules-')), 10_000, 10);
  const loaded = loadRules(dir);
  rmSync(dir, { recursive: true, force: true });
  if (loaded.problems.length > 0) throw new Error(`rule files: ${loaded.problems[0]!.message}`);
  return loaded.rules;
}

/** Microseconds per notice of one pass of `compiled` over `notices`, and groups fired. */
function pass(compiled: ReturnType<typeof compileRules>, notices: readonly Notice[]) {
  let fired = 0;
  const started = performance.now();
  for (const notice of notices) {
    for (const m of compiled.notices.matches(prepareNotice(notice)))
      if (!m.excluded) fired += m.group.rules.length;
  }
  return { us: ((performance.now() - started) * 1000) / notices.length, fired };
}

/** Microseconds per notice of the engine's decisions and writes, and alerts per notice. */
async function withWrites(rules: readonly Rule[], notices: readonly Notice[]) {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-'));
  const store = Store.open(dir);
  try {
    const engine = new AlertEngine(
      { store: asyncStoreOf(store), clock: systemClock, logger: silentLogger, maxAlertAgeMs: 1e12 },
      rules,
    );
    let ms = 0;
    let decided = 0;
    const hooks = engine.hooks();
    const timed = {
      ...hooks,
      notices: async (events: NoticeEvent[]) => {
        const started = performance.now();
        await hooks.notices!(events);
        ms += performance.now() - started;
        decided += events.length;
      },
    };
    for (let i = 0; i < notices.length; i += 20) {
      await ingestNoticePage(asyncStoreOf(store), notices.slice(i, i + 20), {
        seenAt: '2026-11-20T15:00:00Z',
        baseline: false,
        alertableAfter: '2000-01-01T00:00:00Z',
        pipelines: new Set(),
        hooks: timed,
      });
    }
    const alerts = store.outbox.counts().pending;
    return { us: (ms * 1000) / decided, alerts: alerts / decided };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Cold, warm and with-writes figures. */
export async function judgeFigures(): Promise<Record<string, number>> {
  const notices = simulatorNotices(NOTICES, 15);
  const rules = fileRules10000();
  const cold: number[] = [];
  const warm: number[] = [];
  let fired = 0;
  for (let p = 0; p < PASSES; p++) {
    const compiled = compileRules(rules);
    cold.push(pass(compiled, notices).us);
    const again = pass(compiled, notices);
    warm.push(again.us);
    fired = again.fired;
  }
  const written = await withWrites(rules, notices.slice(0, WRITTEN));
  return {
    notices_judged: notices.length,
    field_combinations: new Set(notices.map((n) => fieldsKey(prepareNotice(n)))).size,
    us_per_notice_cold_10000: round2(median(cold)),
    us_per_notice_warm_10000: round2(median(warm)),
    rules_fired_per_notice_file_10000: round2(fired / notices.length),
    us_per_notice_with_writes_10000: round2(written.us),
    alerts_per_notice_10000: round2(written.alerts),
  };
}

if (process.argv[1]?.endsWith('rules-judge.ts')) console.log(judgeFigures());
