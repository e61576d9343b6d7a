/**
 * `pipewatch status`: each feed's last attempt, success and error, what is stored, the
 * capacity plan (which pipelines and cycles are fetched, and which rule asked), the
 * outbox: pending (with the oldest one's age), sent, and dead by kind of failure (each
 * kind with the reason of its latest), and the delivery targets that are stuck (an alert
 * undelivered for longer than `PIPEWATCH_DELIVERY_STUCK_AFTER`), each with the age of its
 * oldest undelivered alert; the subscriptions (the paused ones by channel, with the
 * reason) and the silences in force.
 * Exits 1 when a feed is unhealthy or a target is stuck, as `/healthz` answers 503.
 */
import { Command } from 'commander';
import type { CliContext } from './context.js';

/** Registers `status`; its action loads with the command. */
export function statusCommand(ctx: CliContext): Command {
  return new Command('status')
    .description('last sync per feed, errors, and counts of what is stored')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { json?: boolean }) =>
      (await import('./status-action.js')).showStatus(ctx, opts),
    );
}
