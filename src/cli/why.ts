/**
 * `pipewatch why <notice-id>`: each rule's decision on a notice and the reason: from the
 * audit trail for what happened, and from the current rules for rules that never saw it
 * (the baseline, a notice too old, a rule added later, a pipeline or type it cannot match).
 */
import { Command, InvalidArgumentError } from 'commander';
import {
  deliveryView,
  explainNotice,
  noticeHistory,
  type Verdict,
  verdictLine,
} from '../alerts/explain.js';
import { compileRules } from '../alerts/rules.js';
import { loadRules } from '../rules/loader.js';
import { formatProblem, type RuleProblem } from '../rules/types.js';
import type { Store } from '../store/index.js';
import type { StoredNotice } from '../store/notices.js';
import { type CliContext, openExistingStore } from './context.js';
import { clip, table, toJson } from './format.js';

/** Registers `why`. */
export function whyCommand(ctx: CliContext): Command {
  return new Command('why')
    .description("each rule's decision on a notice, and why")
    .argument('<notice-id>', 'the notice id', (v) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('must be a notice id (a whole number)');
      return Number(v);
    })
    .option('--json', 'print the notice, decisions, verdicts and deliveries as JSON')
    .action((id: number, opts: { json?: boolean }) => {
      const store = openExistingStore(ctx);
      if (!store) return;
      try {
        const notice = store.notices.get(id);
        if (!notice) {
          ctx.err(
            `pipewatch: notice ${id} is not stored (it may be older than the baseline, or not synced yet)`,
          );
          ctx.exitCode = 1;
          return;
        }
        const report = explain(ctx, store, notice);
        if (opts.json) ctx.out(toJson(report));
        else print(ctx, report);
      } finally {
        store.close();
      }
    });
}

interface WhyReport {
  notice: StoredNotice;
  decisions: ReturnType<Store['audit']['forNotice']>;
  /** Null when the rule files are invalid: `rule_problems` says why. */
  verdicts: Array<Omit<Verdict, 'alert'>> | null;
  rule_problems: RuleProblem[];
  deliveries: Array<ReturnType<typeof deliveryView> & { rule: string; detail: string | null }>;
}

function explain(ctx: CliContext, store: Store, notice: StoredNotice): WhyReport {
  const { config } = ctx;
  const loaded = loadRules(config.rulesDir, { cwd: ctx.io.cwd });
  const history = noticeHistory(store, notice.id);
  const verdicts =
    loaded.problems.length > 0
      ? null
      : explainNotice(compileRules(loaded.rules), notice, {
          now: ctx.clock.now(),
          maxAlertAgeMs: config.maxAlertAgeMs,
          zone: store.pipelines.zoneOf(notice.pipeline_slug),
          history,
        }).map(({ alert: _alert, ...v }) => v);
  return {
    notice,
    decisions: history.audit,
    verdicts,
    rule_problems: loaded.problems,
    deliveries: history.outbox.map((d) => ({ ...deliveryView(d), rule: d.rule, detail: d.detail })),
  };
}

function print(ctx: CliContext, report: WhyReport): void {
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
        report.decisions.map((a) => [a.at, a.rule, a.event, a.decision, clip(a.reason, 240)]),
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
    for (const v of report.verdicts) ctx.out(`  ${verdictLine(v)}`);
  }

  if (report.deliveries.length > 0) {
    ctx.out('\nDeliveries:');
    for (const d of report.deliveries) {
      const error = d.last_error ? `, last error: ${d.last_error}` : '';
      const answer = d.detail ? `, ${d.detail}` : '';
      ctx.out(
        `  ${d.key}: ${d.status}${d.sent_at ? ` at ${d.sent_at}` : ''}, ${d.attempts} attempt(s)${answer}${error}`,
      );
    }
  }
}
