/** `pipewatch status`: each feed's last attempt, success and error, and what is stored. */
import { Command } from 'commander';
import { feedSchedule, statusReport } from '../ingest/feeds.js';
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
        const report = statusReport(store, ctx.clock.now(), { feeds: feedSchedule(config) });
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
        for (const f of report.feeds) if (f.reason) ctx.out(`${f.feed}: ${f.reason}`);
        ctx.exitCode = report.healthy ? 0 : 1;
      } finally {
        store.close();
      }
    });
}
