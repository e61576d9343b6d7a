/**
 * What `rules test` does once it runs: loads the rules, the stored notices and capacity,
 * judges them and reports. Apart from the command's definition, so `--help` loads none
 * of it.
 */
import { resolve } from 'node:path';
import { noticeHistories } from '../alerts/explain.js';
import { type CapacityJudgement, explainCapacity } from '../alerts/explain-capacity.js';
import { neverMatching } from '../alerts/never-match.js';
import { compileRules } from '../alerts/rules.js';
import { toUtcIso } from '../lib/time.js';
import { counted } from '../lib/words.js';
import { loadRules } from '../rules/loader.js';
import { formatProblem } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import type { StoredNotice } from '../store/notices.js';
import { DEFAULT_PIPELINE_ZONE } from '../store/pipelines.js';
import type { Notice } from '../upstream/schemas.js';
import type { CliContext } from './context.js';
import type { NoticeRef } from './ids.js';
import { readNoticeFile } from './notice-file.js';
import { namedNotice } from './notice-ref.js';
import { openStoreToRead } from './open-store.js';
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
  const file = opts.file === undefined ? undefined : resolve(ctx.io.cwd, opts.file);
  // Named in messages as given, else by its path.
  const notices = file ? readNoticeFile(file, opts.file ?? file) : undefined;
  // With --file the store lends the pipelines' zones, the subscriptions and the silences,
  // when there is one; without, there must be one.
  const opened = await openStoreToRead(
    { dataDir: config.dataDir, databaseUrl: config.databaseUrl },
    (message) => {
      if (file) return;
      ctx.err(`pipewatch: ${message}`);
      ctx.exitCode = 1;
    },
  );
  if (!file && !opened) return;
  const store = opened?.store;
  try {
    const sources = await withSubscriptions(loaded, store);
    for (const s of sources.invalid) ctx.err(`pipewatch: ${invalidLine(s)}`);
    const compiled = compileRules(sources.rules);
    const silences = store ? await store.silences.active(toUtcIso(now)) : [];
    let list: AsyncIterable<Notice | StoredNotice> | Iterable<Notice | StoredNotice> | undefined =
      notices;
    let ids: readonly number[] = [];
    // Without a file, the store is there: its absence was refused above.
    if (!list && store) {
      if (opts.notice !== undefined) {
        const one = await namedNotice(ctx, store, opts.notice);
        if (!one) return;
        list = [one];
        ids = [one.id];
      } else {
        // Every notice of the window, however many: read, judged and written one by one.
        const since = toUtcIso(new Date(now.getTime() - opts.since));
        ids = await store.notices.idsPostedSince(since);
        list = noticesOf(store, ids);
      }
    }
    const history = file || !store ? undefined : await noticeHistories(store, ids);
    const capacity: CapacityJudgement[] =
      store && !file && opts.notice === undefined
        ? await explainCapacity(compiled, store, now)
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
      never: store ? await neverMatching(compiled.all, store, now) : new Map(),
    };
    const writer: ReportWriter = opts.json
      ? new JsonReport(ctx, scope, renderer, names)
      : new TextReport(ctx, scope, renderer, names);
    const judge = new NoticeJudge(compiled);
    const tally = new Tally(judge);
    const zones = new Map<string, string>();
    const zoneOf = async (slug: string): Promise<string> => {
      let zone = zones.get(slug);
      if (zone === undefined) {
        zone = store ? await store.pipelines.zoneOf(slug) : DEFAULT_PIPELINE_ZONE;
        zones.set(slug, zone);
      }
      return zone;
    };
    for await (const notice of list ?? []) {
      const report = {
        notice,
        stored: !file,
        ...judge.judge(notice, {
          now,
          maxAlertAgeMs: config.maxAlertAgeMs,
          zone: await zoneOf(notice.pipeline_slug),
          ...(history ? { history: await history(notice.id) } : {}),
          silences,
        }),
      };
      tally.add(report);
      writer.notice(report);
    }
    writer.end(capacity, tally);
  } finally {
    await opened?.close();
  }
}

/**
 * The stored notices of `ids`, in their order, read one at a time as they are judged
 * (never all of them in memory); one removed meanwhile (by retention) is passed over.
 */
async function* noticesOf(store: AsyncStore, ids: readonly number[]): AsyncGenerator<StoredNotice> {
  for (const id of ids) {
    const notice = await store.notices.get(id);
    if (notice) yield notice;
  }
}
