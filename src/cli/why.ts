/**
 * `pipewatch why <notice-id>`: each rule's decision on a notice and the reason: from the
 * audit trail for what happened, and from the current rules for rules that never saw it
 * (the baseline, a notice too old, a rule added later, a pipeline or type it cannot match).
 */
import { Command, InvalidArgumentError } from 'commander';
import { explainNotice } from '../alerts/explain.js';
import { compileRules } from '../alerts/rules.js';
import { loadRules } from '../rules/loader.js';
import { formatProblem } from '../rules/types.js';
import { type CliContext, openExistingStore } from './context.js';
import { clip, table } from './format.js';

/** Registers `why`. */
export function whyCommand(ctx: CliContext): Command {
  return new Command('why')
    .description("each rule's decision on a notice, and why")
    .argument('<notice-id>', 'the notice id', (v) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('must be a notice id (a whole number)');
      return Number(v);
    })
    .action((id: number) => {
      const { config } = ctx;
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

        const audit = store.audit.forNotice(id);
        ctx.out('\nDecisions:');
        if (audit.length === 0)
          ctx.out(
            '  none recorded: no new or updated event of this notice reached a rule that could match it',
          );
        else {
          ctx.out(
            table(
              ['at', 'rule', 'event', 'decision', 'reason'],
              audit.map((a) => [a.at, a.rule, a.event, a.decision, clip(a.reason, 80)]),
            )
              .split('\n')
              .map((l) => `  ${l}`)
              .join('\n'),
          );
        }

        const loaded = loadRules(config.rulesDir, { cwd: ctx.io.cwd });
        if (loaded.problems.length > 0) {
          ctx.out(
            `\nThe rule files are invalid, so current verdicts are not shown:\n${loaded.problems.map(formatProblem).join('\n')}`,
          );
        } else {
          const decided = new Set(audit.map((a) => a.rule));
          const verdicts = explainNotice(
            compileRules(loaded.rules),
            notice,
            ctx.clock.now(),
            config.maxAlertAgeMs,
          ).filter((v) => !decided.has(v.rule));
          if (verdicts.length > 0) {
            ctx.out('\nOther rules, as they stand now (for this notice as new):');
            for (const v of verdicts)
              ctx.out(
                `  ${v.rule}: ${v.fires ? `would fire to ${v.targets.join(', ')}` : 'no'}: ${v.reason}`,
              );
          }
        }

        const deliveries = store.outbox.forSubject(`notice:${id}:`);
        if (deliveries.length > 0) {
          ctx.out('\nDeliveries:');
          for (const d of deliveries) {
            const error = d.last_error ? `, last error: ${d.last_error}` : '';
            const answer = d.detail ? `, ${d.detail}` : '';
            ctx.out(
              `  ${d.key}: ${d.status}${d.sent_at ? ` at ${d.sent_at}` : ''}, ${d.attempts} attempt(s)${answer}${error}`,
            );
          }
        }
      } finally {
        store.close();
      }
    });
}
