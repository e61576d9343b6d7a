/**
 * `pipewatch status`: each feed's last attempt, success and error, what is stored, and
 * the outbox: pending (with the oldest one's age), sent, and dead with their reasons.
 */
import { Command } from 'commander';
import { feedSchedule, statusReport } from '../ingest/feeds.js';
import { formatDuration } from '../lib/duration.js';
import { type CliContext, openExistingStore } from './context.js';
import { table, toJson } from './format.js';

/** Registers `status`. */
export function statusCommand(ctx: CliContext): Command {
  return new Command('status')
    .description('last sync per feed, errors, and counts of what is stored')
    .option('--json', 'print the report as JSON')
    .action((opts: { json?: boolean }) => {
      const { config } = ctx;
      const store = openExistingStore(ctx);
      if (!store) return;
      try {
        const now = ctx.clock.now();
        const report = {
          ...statusReport(store, now, { feeds: feedSchedule(config) }),
          outbox: store.outbox.summary(),
        };
        if (opts.json) {
          ctx.out(toJson(report));
          return;
        }
        const rows = report.feeds.map((f) => [
          f.feed,
          f.healthy === false ? 'UNHEALTHY' : 'ok',
          f.last_attempt_at ?? 'never',
          f.last_success_at ?? 'never',
          String(f.consecutive_failures),
          f.last_error ?? '',
        ]);
        ctx.out(
          table(['feed', 'health', 'last attempt', 'last success', 'failures', 'last error'], rows),
        );
        const c = report.counts;
        ctx.out(
          `\nstored: ${c.pipelines} pipelines, ${c.notices} notices, ${c.capacity_cycles} capacity cycles`,
        );
        const o = report.outbox;
        const oldest = o.oldest_pending_at
          ? ` (oldest ${formatDuration(Math.max(0, Math.round((now.getTime() - Date.parse(o.oldest_pending_at)) / 1000) * 1000))} ago)`
          : '';
        ctx.out(`outbox: ${o.pending} pending${oldest}, ${o.sent} sent, ${o.dead} dead`);
        for (const d of o.dead_reasons)
          ctx.out(`  dead: ${d.count} × ${d.reason} (last decided ${d.last_at})`);
        for (const f of report.feeds) if (f.reason) ctx.out(`${f.feed}: ${f.reason}`);
        ctx.exitCode = report.healthy ? 0 : 1;
      } finally {
        store.close();
      }
    });
}
