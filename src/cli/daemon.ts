/**
 * Wiring of the daemon shared by `run` and `demo`: the API client, the store, the
 * metrics, the feeds and their scheduler, and the HTTP endpoints.
 */

import { assessHealth } from '../http/health.js';
import { Metrics } from '../http/metrics.js';
import { type RunningHttpServer, startHttpServer } from '../http/server.js';
import type { IngestHooks } from '../ingest/events.js';
import { buildFeeds, type FeedSettings, statusReport } from '../ingest/feeds.js';
import { type FeedOutcome, Scheduler } from '../ingest/scheduler.js';
import { Store } from '../store/index.js';
import { type ApiTarget, openApi } from './api-target.js';
import type { CliContext } from './context.js';

export interface DaemonSetup {
  settings: FeedSettings;
  dataDir: string;
  /** HTTP port; undefined: no HTTP server. */
  httpPort?: number | undefined;
  hooks: IngestHooks;
  /** Options of the simulator started when no API is configured. */
  simulator?: { live?: boolean; speed?: number; noticesPerHour?: number };
}

/** A wired daemon. */
export class Daemon {
  private http: RunningHttpServer | undefined;
  readonly startedAt: Date;

  private constructor(
    private readonly ctx: CliContext,
    readonly target: ApiTarget,
    readonly store: Store,
    readonly metrics: Metrics,
    readonly scheduler: Scheduler,
  ) {
    this.startedAt = ctx.clock.now();
  }

  static async create(ctx: CliContext, setup: DaemonSetup): Promise<Daemon> {
    const store = Store.open(setup.dataDir);
    let target: ApiTarget;
    try {
      target = await openApi(ctx, setup.simulator ?? { live: true });
    } catch (error) {
      store.close();
      throw error;
    }
    const metrics = new Metrics();
    const deps = {
      client: target.client,
      store,
      clock: ctx.clock,
      logger: ctx.logger,
      hooks: setup.hooks,
      metrics,
    };
    const scheduler = new Scheduler(
      { store, clock: ctx.clock, logger: ctx.logger, metrics },
      buildFeeds(deps, setup.settings),
    );
    const daemon = new Daemon(ctx, target, store, metrics, scheduler);
    if (setup.httpPort !== undefined) {
      try {
        daemon.http = await startHttpServer({
          port: setup.httpPort,
          metrics,
          logger: ctx.logger,
          health: () =>
            assessHealth(scheduler.feeds, store.syncState.all(), ctx.clock.now(), daemon.startedAt),
          status: () => daemon.status(),
        });
      } catch (error) {
        await daemon.close();
        throw error;
      }
    }
    return daemon;
  }

  /** The HTTP server's base URL, when it runs. */
  get httpUrl(): string | undefined {
    return this.http?.url;
  }

  status() {
    return statusReport(this.store, this.ctx.clock.now(), {
      feeds: this.scheduler.feeds,
      startedAt: this.startedAt,
    });
  }

  /** Every feed once. */
  runOnce(): Promise<FeedOutcome[]> {
    return this.scheduler.runOnce(this.ctx.signal);
  }

  /** Every feed on its schedule until the context's signal aborts. */
  run(): Promise<void> {
    return this.scheduler.start(this.ctx.signal);
  }

  /** Stops serving, closes connections and the database. */
  async close(): Promise<void> {
    await this.http?.close();
    await this.target.close();
    this.store.close();
  }
}
