/**
 * `pipewatch demo` (what `npm start` runs): the simulator in live mode on a clock sixty
 * times faster than real time, the daemon against it with short intervals and a fresh
 * database under `data/demo/`, and each event printed as it arrives.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { secretValues } from '../config/index.js';
import type { FeedSettings } from '../ingest/feeds.js';
import type { CliContext } from './context.js';
import { Daemon } from './daemon.js';
import { capacityLine, driftLine, noticeLine } from './event-lines.js';

/** Simulated seconds per real second. */
const SPEED = 60;
/** Simulated notice events per hour: with SPEED, about one every three real seconds. */
const NOTICES_PER_HOUR = 20;

/** Short intervals, so the demo moves; real deployments keep the defaults. */
const DEMO_SETTINGS: FeedSettings = {
  noticesIntervalMs: 5_000,
  capacityIntervalMs: 20_000,
  pipelinesIntervalMs: 3_600_000,
  catalogIntervalMs: 60_000,
  maxAlertAgeMs: 86_400_000,
  pipelines: [],
  capacityPipelines: ['transco', 'texas-eastern'],
  baselinePages: 10,
  baselineAgeMs: 7 * 86_400_000,
};

/** Registers `demo`. */
export function demoCommand(ctx: CliContext): Command {
  return new Command('demo')
    .description('run the demo against the built-in simulator')
    .action(async () => {
      // The simulator's data is anchored at its start time, so each demo starts from a fresh database.
      const dataDir = join(ctx.io.cwd, 'data', 'demo');
      rmSync(dataDir, { recursive: true, force: true });
      const daemon = await Daemon.create(ctx, {
        settings: DEMO_SETTINGS,
        dataDir,
        rulesDir: join(ctx.io.cwd, 'rules'),
        httpPort: 0,
        alertsIntervalMs: 2_000,
        channels: ctx.config,
        delivery: { ...ctx.config.delivery, digestWindowMs: 2_000 },
        secrets: secretValues(ctx.config),
        standIn: true,
        print: (text) => ctx.out(text),
        simulator: { live: true, speed: SPEED, noticesPerHour: NOTICES_PER_HOUR },
        hooks: {
          notices: (events) => {
            for (const e of events) ctx.out(noticeLine(e));
          },
          capacity: (e) => ctx.out(capacityLine(e)),
          schemaDrift: (e) => ctx.out(driftLine(e)),
        },
      });
      const source = daemon.target.simulator
        ? `simulator at ${daemon.target.simulator.url} (clock x${SPEED})`
        : 'the configured API';
      ctx.out(`pipewatch demo: ${source}`);
      ctx.out(
        `  database ${join(dataDir, 'pipewatch.db')}; status ${daemon.httpUrl}/status, metrics ${daemon.httpUrl}/metrics`,
      );
      ctx.out('  Ctrl-C to stop.');
      ctx.out('  The first sync is a baseline: it stores recent notices without reporting them.');
      try {
        await daemon.run();
      } finally {
        await daemon.close();
      }
    });
}
