/**
 * `pipewatch run`: the daemon. Polls every feed on its schedule, serves `/healthz`,
 * `/status` and `/metrics`, and stops cleanly on SIGTERM/SIGINT. `--once` runs every
 * feed once and exits 1 if any failed, for cron and scripts.
 */
import { Command } from 'commander';
import { secretValues } from '../config/index.js';
import type { CliContext } from './context.js';
import { capacityLine, driftLine, noticeLine } from './event-lines.js';

/** Registers `run`. */
export function runCommand(ctx: CliContext): Command {
  return new Command('run')
    .description('poll the API, store what arrives and report it, until stopped')
    .option('--once', 'run every feed once, then exit (1 if a feed failed)')
    .action(async (opts: { once?: boolean }) => {
      const { Daemon } = await import('./daemon.js');
      const { config } = ctx;
      const log = ctx.logger;
      const daemon = await Daemon.create(ctx, {
        settings: config,
        dataDir: config.dataDir,
        rulesDir: config.rulesDir,
        httpPort: opts.once ? undefined : config.httpPort,
        httpHost: config.httpHost,
        statusToken: config.statusToken,
        channels: config,
        opsTarget: config.opsTarget,
        chat: opts.once ? undefined : { admins: config.chatAdmins },
        delivery: config.delivery,
        secretKey: config.secretKey,
        secrets: secretValues(config),
        print: (text) => ctx.out(text),
        hooks: {
          notices: (events) => {
            for (const e of events)
              log.info({ event: e.change, notice: e.notice.id, tooOld: e.tooOld }, noticeLine(e));
          },
          capacity: (e) => log.info({ event: 'capacity', cycle: e.cycle.id }, capacityLine(e)),
          schemaDrift: (e) => log.warn({ event: 'schema-drift', table: e.table }, driftLine(e)),
        },
      });
      try {
        if (opts.once) {
          const { feeds: outcomes, delivery } = await daemon.runOnce();
          for (const o of outcomes)
            ctx.out(`${o.feed}: ${o.ok ? 'ok' : `failed: ${o.error?.message}`}`);
          const counts = daemon.store.counts();
          const outbox = daemon.store.outbox.counts();
          ctx.out(
            `stored: ${counts.pipelines} pipelines, ${counts.notices} notices, ${counts.capacity_cycles} capacity cycles`,
          );
          ctx.out(
            `delivered: ${delivery.sent} alerts in ${delivery.messages} messages; ${delivery.retrying} waiting for a retry, ${delivery.dead} failed for good`,
          );
          ctx.out(`outbox: ${outbox.pending} pending, ${outbox.sent} sent, ${outbox.dead} dead`);
          ctx.exitCode = outcomes.every((o) => o.ok) ? 0 : 1;
          return;
        }
        log.info(
          {
            http: daemon.httpUrl,
            feeds: daemon.scheduler.feeds.map((f) => `${f.name}/${f.intervalMs / 1000}s`),
          },
          `pipewatch running; health, status and metrics on ${daemon.httpUrl}`,
        );
        // Credentials are checked once, as a courtesy: a refusal is reported, not fatal,
        // since the platform may only be unreachable for now; deliveries say the rest.
        for (const check of await daemon.channels.verify()) {
          if (check.ok) log.info({ channel: check.kind }, `channel ${check.kind}: ${check.detail}`);
          else
            log.error(
              { channel: check.kind, reason: check.detail },
              `channel ${check.kind} failed its credential check: ${check.detail}`,
            );
        }
        await daemon.run();
        log.info('stopping: feeds finished, closing the database');
      } finally {
        await daemon.close();
      }
    });
}
