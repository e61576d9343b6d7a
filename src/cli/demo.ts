/**
 * `pipewatch demo` (what `npm start` runs): the simulator in live mode on an accelerated
 * clock, watched through the API client, printing each new or updated notice and each
 * new capacity cycle as it arrives.
 */
import { Command } from 'commander';
import type { Notice } from '../upstream/schemas.js';
import { openApi } from './api-target.js';
import type { CliContext } from './context.js';
import { clip, quantity, when } from './format.js';

const SPEED = 60;
/** Simulated notice events per hour: with SPEED, about one every three real seconds. */
const NOTICES_PER_HOUR = 20;
const POLL_MS = 5_000;
const CAPACITY_EVERY = 3;
/** Pages read per round; the baseline reads as deep as later rounds may go. */
const DEPTH = 5;
const WATCHED_PIPELINE = 'transco';

/** Registers `demo`. */
export function demoCommand(ctx: CliContext): Command {
  return new Command('demo')
    .description('run the demo against the built-in simulator')
    .action(async () => {
      const target = await openApi(ctx, {
        live: true,
        speed: SPEED,
        noticesPerHour: NOTICES_PER_HOUR,
      });
      const { client } = target;
      const seen = new Map<number, string>();
      let lastCycle: number | undefined;
      const line = (tag: string, n: Notice) =>
        ctx.out(
          `[${tag}] ${when(n.posted_at)} ${n.pipeline_slug}: ${clip(n.type, 24)} (${n.category || '-'}, ${n.status || 'no status'}) ${clip(n.subject, 70)}`,
        );
      ctx.out(
        `pipewatch demo: ${target.simulator ? `simulator at ${target.simulator.url}, clock x${SPEED}` : 'configured API'}; Ctrl-C to stop`,
      );
      try {
        for (let round = 0; !ctx.signal.aborted; round++) {
          let fresh = 0;
          for await (const page of client.noticePages({
            maxPages: DEPTH,
            signal: ctx.signal,
          })) {
            let changed = 0;
            for (const n of page.data) {
              const version = n.service_updated_at ?? '';
              const known = seen.get(n.id);
              seen.set(n.id, version);
              if (round === 0 || known === version) continue;
              changed++;
              line(known === undefined ? 'new' : 'updated', n);
            }
            fresh += changed;
            if (round > 0 && changed === 0) break;
          }
          if (round === 0)
            ctx.out(`baseline: ${seen.size} recent notices stored; waiting for new ones…`);
          if (round % CAPACITY_EVERY === 0) {
            const { data } = await client.capacity(WATCHED_PIPELINE);
            if (data.cycle.id !== lastCycle) {
              lastCycle = data.cycle.id;
              const low = [...data.locations].sort((a, b) => (a.oac ?? 0) - (b.oac ?? 0))[0];
              ctx.out(
                `[capacity] ${WATCHED_PIPELINE} ${data.cycle.cycle} cycle, gas day ${data.cycle.gas_day}: ${data.locations.length} locations${low ? `, lowest OAC ${quantity(low.oac)} at ${low.location}` : ''}`,
              );
            }
          }
          if (fresh === 0 && round > 0) ctx.logger.debug('no new notices');
          await ctx.clock.sleep(POLL_MS, ctx.signal).catch(() => undefined);
        }
      } finally {
        await target.close();
      }
    });
}
