/**
 * `pipewatch run`: the daemon. Polls every feed on its schedule, serves `/healthz`,
 * `/status` and `/metrics`, and stops cleanly on SIGTERM/SIGINT. `--once` runs every
 * feed once and exits 1 if any failed, for cron and scripts. With `PIPEWATCH_HEARTBEAT_URL`
 * set, the daemon pings it after each notices poll and `--once` at its end (`/fail`
 * when a feed failed).
 *
 * It watches the API of `PIPEWATCH_API_URL`, and refuses to start without one: a daemon
 * with real Slack or SMTP credentials that fell back to the simulator would send its
 * invented notices to real people. `--simulator` is the one way to watch the simulator.
 */

import { Command } from 'commander';
import { ConfigError, secretValues } from '../config/index.js';
import { heartbeatLabel } from '../lib/heartbeat.js';
import { counted } from '../lib/words.js';
import { storeCounts } from '../store/async-store.js';
import type { CliContext } from './context.js';
import { capacityLine, driftLine, noticeLine } from './event-lines.js';

/** Why `run` refuses to start without an API: one line, naming the ways that need none. */
export const NO_API =
  'PIPEWATCH_API_URL is not set: set it to the API to watch, or run `pipewatch demo` ' +
  '(the demo) or `pipewatch run --simulator` (the daemon against the built-in simulator)';

/** Registers `run`. */
export function runCommand(ctx: CliContext): Command {
  return new Command('run')
    .description('poll the API, store what arrives and report it, until stopped')
    .option('--once', 'run every feed once, then exit (1 if a feed failed)')
    .option(
      '--simulator',
      'watch the built-in simulator of the API (invented notices), not PIPEWATCH_API_URL',
    )
    .action(async (opts: { once?: boolean; simulator?: boolean }) => {
      const { config } = ctx;
      if (!opts.simulator && config.api.url === null) throw new ConfigError([NO_API]);
      const { Daemon } = await import('./daemon.js');
      const log = ctx.logger;
      if (opts.simulator && config.api.url !== null)
        log.warn(
          '--simulator: watching the built-in simulator, not the PIPEWATCH_API_URL that is set',
        );
      const daemon = await Daemon.create(ctx, {
        ...(opts.simulator ? { simulator: { live: true } } : {}),
        settings: config,
        dataDir: config.dataDir,
        databaseUrl: config.databaseUrl,
        leaderLeaseMs: config.leaderLeaseMs,
        rulesDir: config.rulesDir,
        httpPort: opts.once ? undefined : config.httpPort,
        httpHost: config.httpHost,
        statusToken: config.statusToken,
        channels: config,
        opsTarget: config.opsTarget,
        heartbeatUrl: config.heartbeatUrl,
        chat: opts.once ? undefined : { admins: config.chatAdmins, limits: config.chatLimits },
        delivery: config.delivery,
        secretKey: config.secretKey,
        secrets: secretValues(config),
        // Only SIGTERM/SIGINT stop it: with its output gone (a log pipe that broke) it
        // keeps sending alerts, and alerts for the console wait in the outbox.
        signal: ctx.io.signal,
        print: (text) => ctx.out(text),
        hooks: {
          notices: async (events) => {
            for (const e of events)
              log.info({ event: e.change, notice: e.notice.id, tooOld: e.tooOld }, noticeLine(e));
          },
          capacity: async (e) =>
            log.info({ event: 'capacity', cycle: e.cycle.id }, capacityLine(e)),
          schemaDrift: async (e) =>
            log.warn({ event: 'schema-drift', table: e.table }, driftLine(e)),
        },
      });
      try {
        if (opts.once) {
          const { feeds: outcomes, delivery } = await daemon.runOnce();
          // Decided before printing: output cut short (`| head`) still ends with it.
          ctx.exitCode = outcomes.every((o) => o.ok) ? 0 : 1;
          for (const o of outcomes)
            ctx.out(`${o.feed}: ${o.ok ? 'ok' : `failed: ${o.error?.message}`}`);
          const counts = await storeCounts(daemon.store);
          const outbox = await daemon.store.outbox.counts();
          ctx.out(
            `stored: ${counted(counts.pipelines, 'pipeline')}, ${counted(counts.notices, 'notice')}, ${counted(counts.capacity_cycles, 'capacity cycle')}`,
          );
          ctx.out(
            `delivered: ${counted(delivery.sent, 'alert')} in ${counted(delivery.messages, 'message')}; ${delivery.retrying} waiting for a retry, ${delivery.dead} failed for good`,
          );
          ctx.out(`outbox: ${outbox.pending} pending, ${outbox.sent} sent, ${outbox.dead} dead`);
          return;
        }
        log.info(
          {
            http: daemon.httpUrl,
            feeds: daemon.scheduler.feeds.map((f) => `${f.name}/${f.intervalMs / 1000}s`),
          },
          `pipewatch running; health, status and metrics on ${daemon.httpUrl}`,
        );
        if (config.heartbeatUrl)
          log.info(
            { heartbeat: heartbeatLabel(config.heartbeatUrl) },
            `heartbeat: ${heartbeatLabel(config.heartbeatUrl)} after each notices poll (/fail after a failed one)`,
          );
        if (!config.opsTarget)
          log.warn(
            'PIPEWATCH_OPS_TARGET is not set: when a feed stops succeeding or alerts stop getting through, pipewatch only logs it and turns /healthz red',
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
