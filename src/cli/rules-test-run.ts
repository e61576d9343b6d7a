/**
 * What `rules test` does once it runs: loads the rules, the stored notices and capacity,
 * judges them and reports. Apart from the command's definition, so `--help` loads none
 * of it.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { noticeHistories } from '../alerts/explain.js';
import { type CapacityJudgement, explainCapacity } from '../alerts/explain-capacity.js';
import { neverMatching } from '../alerts/never-match.js';
import { compileRules } from '../alerts/rules.js';
import { toUtcIso } from '../lib/time.js';
import { counted } from '../lib/words.js';
import { loadRules } from '../rules/loader.js';
import { formatProblem } from '../rules/types.js';
import { asyncStoreOf } from '../store/async-sqlite.js';
import { DATABASE_FILE, Store } from '../store/index.js';
import type { StoredNotice } from '../store/notices.js';
import { DEFAULT_PIPELINE_ZONE } from '../store/pipelines.js';
import type { Notice } from '../upstream/schemas.js';
import type { CliContext } from './context.js';
import type { NoticeRef } from './ids.js';
import { readNoticeFile } from './notice-file.js';
import { namedNotice } from './notice-ref.js';
import { invalidLine, RuleNames, sourceOf, withSubscriptions } from './rule-sources.js';
import type { ReportWriter } from './rules-test-output.js';
import { NoticeJudge } from './subscription-verdicts.js';

/** The options of `rules test`, as commander parses them (`sinceText` as typed). */
export interface TestOptions {
  notice?: NoticeRef;
  since: number;
  sinceText: string;
  file?: string;
  json?: boolean;
  render?: boolean;
  renderDir?: string;
}

/** Judges the notices and capacity the options name under the rules, and reports it. */
export async function runRulesTest(ctx: CliContext, opts: TestOptions): Promise<void> {
  // Reporting and rendering load every channel's renderer: only once the command runs.
  const [{ JsonReport }, { Tally, TextReport }, { Renderer }] = await Promise.all([
    import('./rules-test-json.js'),
    import('./rules-test-output.js'),
    import('./rules-test-render.js'),
  ]);
  const { config } = ctx;
  const loaded = loadRules(config.rulesDir, { cwd: ctx.io.cwd });
  if (loaded.problems.length > 0) {
    for (const p of loaded.problems) ctx.err(formatProblem(p));
    ctx.err(
      `pipewatch: the rule files are invalid (${counted(loaded.problems.length, 'problem')})`,
    );
    ctx.exitCode = 1;
    return;
  }
  const now = ctx.clock.now();
  const dbFile = join(config.dataDir, DATABASE_FILE);
  const file = opts.file === undefined ? undefined : resolve(ctx.io.cwd, opts.file);
  // Named in messages as given, else by its path.
  const notices = file ? readNoticeFile(file, opts.file ?? file) : undefined;
  if (!file && !existsSync(dbFile)) {
    ctx.err(
      `pipewatch: no database at ${dbFile}; run 'pipewatch run' first (or set PIPEWATCH_DATA_DIR)`,
    );
    ctx.exitCode = 1;
    return;
  }
  // With --file the store lends the pipelines' zones, the subscriptions and the silences, when there is one.
  const store = existsSync(dbFile) ? Store.openReadonly(config.dataDir) : undefined;
  try {
    const sources = withSubscriptions(loaded, store);
    for (const s of sources.invalid) ctx.err(`pipewatch: ${invalidLine(s)}`);
    const compiled = compileRules(sources.rules);
    const silences = store?.silences.active(toUtcIso(now)) ?? [];
    let list: Iterable<Notice | StoredNotice> | undefined = notices;
    let ids: readonly number[] = [];
    // Without a file, the store is there: its absence was refused above.
    if (!list && store) {
      const s = store;
      if (opts.notice !== undefined) {
        const one = namedNotice(ctx, s, opts.notice);
        if (!one) return;
        list = [one];
        ids = [one.id];
      } else {
        // Every notice of the window, however many: streamed, judged and written one by one.
        const since = toUtcIso(new Date(now.getTime() - opts.since));
        ids = s.notices.idsPostedSince(since);
        list = s.notices.postedSince(since);
      }
    }
    const async = store ? asyncStoreOf(store) : undefined;
    const history = file || !async ? undefined : await noticeHistories(async, ids);
    const capacity: CapacityJudgement[] =
      async && !file && opts.notice === undefined
        ? await explainCapacity(compiled, async, now)
        : [];
    const renderer = opts.render
      ? new Renderer(compiled.all, {
          now: toUtcIso(now),
          emailFrom: config.email.from,
          webhookSecret: config.webhookSecret,
          pagerdutyApiUrl: config.pagerduty.apiUrl,
          dir: opts.renderDir === undefined ? undefined : resolve(ctx.io.cwd, opts.renderDir),
        })
      : undefined;
    const scope = {
      now: toUtcIso(now),
      source: file ? ('file' as const) : ('stored' as const),
      file: opts.file ?? null,
      since: file || opts.notice !== undefined ? null : opts.sinceText,
      single: opts.notice !== undefined || (notices !== undefined && notices.length === 1),
    };
    const names = {
      names: new RuleNames(sources.subscriptions),
      sources: new Map(compiled.all.map((r) => [r.name, sourceOf(r)])),
      never: async ? await neverMatching(compiled.all, async, now) : new Map(),
    };
    const writer: ReportWriter = opts.json
      ? new JsonReport(ctx, scope, renderer, names)
      : new TextReport(ctx, scope, renderer, names);
    const judge = new NoticeJudge(compiled);
    const tally = new Tally(judge);
    for (const notice of list ?? []) {
      const report = {
        notice,
        stored: !file,
        ...judge.judge(notice, {
          now,
          maxAlertAgeMs: config.maxAlertAgeMs,
          zone: store?.pipelines.zoneOf(notice.pipeline_slug) ?? DEFAULT_PIPELINE_ZONE,
          ...(history ? { history: await history(notice.id) } : {}),
          silences,
        }),
      };
      tally.add(report);
      writer.notice(report);
    }
    writer.end(capacity, tally);
  } finally {
    store?.close();
  }
}
