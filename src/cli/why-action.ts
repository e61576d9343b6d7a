/**
 * What `pipewatch why` does once it runs: reads the notice's history and judges it under
 * the current rules. Apart from the command's definition, so `--help` loads none of it.
 */
import { deliveryView, no, noticeHistory, type Verdict, verdictLine } from '../alerts/explain.js';
import { compileRules } from '../alerts/rules.js';
import { toUtcIso } from '../lib/time.js';
import { counted } from '../lib/words.js';
import { subscriptionRule } from '../rules/subscription.js';
import { formatProblem, type RuleProblem } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import type { AuditEntry } from '../store/audit.js';
import type { StoredNotice } from '../store/notices.js';
import type { CliContext } from './context.js';
import { clip, table, toJson } from './format.js';
import type { NoticeRef } from './ids.js';
import { namedNotice } from './notice-ref.js';
import { openExistingStore } from './open-store.js';
import {
  type InvalidSubscription,
  invalidLine,
  loadRuleSources,
  RuleNames,
  type RuleSources,
  sourceOf,
} from './rule-sources.js';
import { judgeNotice } from './subscription-verdicts.js';

interface WhyReport {
  notice: StoredNotice;
  decisions: AuditEntry[];
  /**
   * Null when the rule files are invalid: `rule_problems` says why. Each with where its
   * rule came from: a file position, or a subscription's label.
   */
  verdicts: Array<Omit<Verdict, 'alert'> & { source: string | null }> | null;
  rule_problems: RuleProblem[];
  /** Stored subscriptions that are not in force because their rule no longer validates. */
  subscription_problems: InvalidSubscription[];
  deliveries: Array<ReturnType<typeof deliveryView> & { rule: string; detail: string | null }>;
}

/** Paused subscriptions judge nothing: each says so, with since when and why. */
function pausedVerdicts(sources: RuleSources): Array<Verdict & { source: string }> {
  return sources.subscriptions.flatMap((row) => {
    if (row.paused_at === null) return [];
    const rule = subscriptionRule(row);
    if (!('kind' in rule)) return [];
    const why = row.paused_reason ? ` (${row.paused_reason})` : '';
    const reason = `paused since ${row.paused_at}${why}: it judges nothing until its channel is back`;
    return [{ ...no(rule, 'not-applicable', reason), source: sourceOf(rule) }];
  });
}

async function explain(
  ctx: CliContext,
  store: AsyncStore,
  notice: StoredNotice,
  sources: RuleSources,
): Promise<WhyReport> {
  const { config } = ctx;
  const history = await noticeHistory(store, notice.id);
  const now = ctx.clock.now();
  const compiled = compileRules(sources.rules);
  const origin = new Map(compiled.all.map((r) => [r.name, sourceOf(r)]));
  const verdicts =
    sources.fileProblems.length > 0
      ? null
      : [
          ...judgeNotice(compiled, notice, {
            now,
            maxAlertAgeMs: config.maxAlertAgeMs,
            zone: await store.pipelines.zoneOf(notice.pipeline_slug),
            history,
            silences: await store.silences.active(toUtcIso(now)),
          }).map(({ alert: _alert, ...v }) => ({ ...v, source: origin.get(v.rule) ?? null })),
          ...pausedVerdicts(sources),
        ];
  return {
    notice,
    decisions: history.audit,
    verdicts,
    rule_problems: sources.fileProblems,
    subscription_problems: sources.invalid,
    deliveries: history.outbox.map((d) => ({ ...deliveryView(d), rule: d.rule, detail: d.detail })),
  };
}

function print(ctx: CliContext, report: WhyReport, names: RuleNames): void {
  const { notice } = report;
  ctx.out(`notice #${notice.id} ${notice.pipeline_slug}: ${clip(notice.subject, 90)}`);
  ctx.out(
    `  type ${notice.type || '-'}, category ${notice.category || '-'}, status ${notice.status || '-'}, posted ${notice.posted_at ?? '-'}`,
  );
  ctx.out(
    `  version ${notice.version}, first seen ${notice.first_seen_at}, last changed ${notice.last_changed_at}`,
  );
  if (notice.baseline)
    ctx.out(
      '  stored quietly by the baseline (it existed before pipewatch watched): it never alerts as new',
    );

  ctx.out('\nDecisions:');
  if (report.decisions.length === 0)
    ctx.out(
      '  none recorded: no new or updated event of this notice reached a rule that could match it',
    );
  else {
    ctx.out(
      table(
        ['at', 'rule', 'event', 'decision', 'reason'],
        report.decisions.map((a) => [
          a.at,
          names.show(a.rule),
          a.event,
          a.decision,
          clip(a.reason, 240),
        ]),
      )
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n'),
    );
  }

  if (report.verdicts === null) {
    ctx.out(
      `\nThe rule files are invalid, so current verdicts are not shown:\n${report.rule_problems.map(formatProblem).join('\n')}`,
    );
  } else if (report.verdicts.length > 0) {
    ctx.out('\nVerdicts of the rules as they stand now:');
    for (const v of report.verdicts) ctx.out(`  ${names.line(v.rule, verdictLine(v))}`);
  }
  for (const s of report.subscription_problems) ctx.out(`  ${invalidLine(s)}`);

  if (report.deliveries.length > 0) {
    ctx.out('\nDeliveries:');
    for (const d of report.deliveries) {
      const error = d.last_error ? `, last error: ${d.last_error}` : '';
      const answer = d.detail ? `, ${d.detail}` : '';
      ctx.out(
        `  ${d.key}: ${d.status}${d.sent_at ? ` at ${d.sent_at}` : ''}, ${counted(d.attempts, 'attempt')}${answer}${error}`,
      );
    }
  }
}

/**
 * Prints each rule's decision on the notice `ref` names and why; or says it is not
 * stored, or which notices it may mean.
 */
export async function showWhy(
  ctx: CliContext,
  ref: NoticeRef,
  opts: { json?: boolean },
): Promise<void> {
  const opened = await openExistingStore(ctx);
  if (!opened) return;
  const { store } = opened;
  try {
    const notice = await namedNotice(ctx, store, ref);
    if (!notice) return;
    const sources = await loadRuleSources(ctx, store);
    const report = await explain(ctx, store, notice, sources);
    if (opts.json) ctx.out(toJson(report));
    else print(ctx, report, new RuleNames(sources.subscriptions));
  } finally {
    await opened.close();
  }
}
