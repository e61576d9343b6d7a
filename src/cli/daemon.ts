/**
 * Wiring of the daemon shared by `run` and `demo`: the rules, the API client, the store,
 * the alert engine on the ingest hooks, the feeds and their scheduler, the interim
 * console delivery, and the HTTP endpoints.
 */

import { drainToConsole } from '../alerts/console.js';
import { AlertEngine } from '../alerts/engine.js';
import { assessHealth } from '../http/health.js';
import { Metrics } from '../http/metrics.js';
import { type RunningHttpServer, startHttpServer } from '../http/server.js';
import type { IngestHooks } from '../ingest/events.js';
import { buildFeeds, type FeedSettings, statusReport } from '../ingest/feeds.js';
import { type Feed, type FeedOutcome, Scheduler } from '../ingest/scheduler.js';
import { loadRules } from '../rules/loader.js';
import { formatProblem, type RuleProblem } from '../rules/types.js';
import { watchRules } from '../rules/watch.js';
import { Store } from '../store/index.js';
import { type ApiTarget, openApi } from './api-target.js';
import type { CliContext } from './context.js';

export interface DaemonSetup {
  settings: FeedSettings;
  dataDir: string;
  rulesDir: string;
  /** HTTP port; undefined: no HTTP server. */
  httpPort?: number | undefined;
  /** Ingest events, besides deciding alerts on them (the demo prints them). */
  hooks?: IngestHooks;
  /** Where alerts go until the channels deliver them. */
  printAlert: (line: string) => void;
  /** How often due reminders are sent and the outbox is drained. */
  alertsIntervalMs?: number;
  /** Options of the simulator started when no API is configured. */
  simulator?: { live?: boolean; speed?: number; noticesPerHour?: number };
}

/** The rule files are invalid: start-up stops and lists every problem. */
export class RulesInvalidError extends Error {
  readonly code = 'RULES_INVALID';
  constructor(readonly problems: RuleProblem[]) {
    super(
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the rule files:\n${problems.map(formatProblem).join('\n')}`,
    );
    this.name = 'RulesInvalidError';
  }
}

/** A wired daemon. */
export class Daemon {
  private http: RunningHttpServer | undefined;
  private stopWatching: (() => void) | undefined;
  readonly startedAt: Date;

  private constructor(
    private readonly ctx: CliContext,
    private readonly setup: DaemonSetup,
    readonly target: ApiTarget,
    readonly store: Store,
    readonly metrics: Metrics,
    readonly engine: AlertEngine,
    readonly scheduler: Scheduler,
  ) {
    this.startedAt = ctx.clock.now();
  }

  static async create(ctx: CliContext, setup: DaemonSetup): Promise<Daemon> {
    const loaded = loadRules(setup.rulesDir, { cwd: ctx.io.cwd });
    if (loaded.problems.length > 0) throw new RulesInvalidError(loaded.problems);
    ctx.logger.info(
      { rules: loaded.rules.length, files: loaded.files.length },
      `rules: ${loaded.rules.length} in force`,
    );
    const store = Store.open(setup.dataDir);
    let target: ApiTarget;
    try {
      target = await openApi(ctx, setup.simulator ?? { live: true });
    } catch (error) {
      store.close();
      throw error;
    }
    const metrics = new Metrics();
    const engine = new AlertEngine(
      { store, clock: ctx.clock, logger: ctx.logger, maxAlertAgeMs: setup.settings.maxAlertAgeMs },
      loaded.rules,
    );
    const deps = {
      client: target.client,
      store,
      clock: ctx.clock,
      logger: ctx.logger,
      hooks: engine.hooks(setup.hooks),
      metrics,
    };
    const alerts: Feed = {
      name: 'alerts',
      intervalMs: setup.alertsIntervalMs ?? 15_000,
      run: async () => {
        engine.runReminders();
        drainToConsole(store, ctx.clock, setup.printAlert);
      },
    };
    const feeds = [...buildFeeds(deps, setup.settings), alerts];
    const scheduler = new Scheduler(
      { store, clock: ctx.clock, logger: ctx.logger, metrics },
      feeds,
    );
    const daemon = new Daemon(ctx, setup, target, store, metrics, engine, scheduler);
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
    return {
      ...statusReport(this.store, this.ctx.clock.now(), {
        feeds: this.scheduler.feeds,
        startedAt: this.startedAt,
      }),
      outbox: this.store.outbox.counts(),
      rules: this.engine.rules.length,
    };
  }

  /** Every feed once, the alerts feed last, so what the others decided is sent. */
  runOnce(): Promise<FeedOutcome[]> {
    return this.scheduler.runOnce(this.ctx.signal);
  }

  /** Every feed on its schedule until the context's signal aborts; rule files reload on change. */
  async run(): Promise<void> {
    const watcher = watchRules(this.setup.rulesDir, {
      cwd: this.ctx.io.cwd,
      logger: this.ctx.logger,
      onChange: (rules) => {
        this.engine.setRules(rules);
        this.ctx.logger.info({ rules: rules.length }, `rules reloaded: ${rules.length} in force`);
      },
      onRejected: (problems) => {
        this.ctx.logger.error(
          { problems: problems.map(formatProblem) },
          `rule change rejected, the previous rules stay in force:\n${problems.map(formatProblem).join('\n')}`,
        );
      },
    });
    this.stopWatching = () => watcher.close();
    try {
      await this.scheduler.start(this.ctx.signal);
    } finally {
      this.stopWatching();
    }
  }

  /** Stops serving, closes connections and the database. */
  async close(): Promise<void> {
    this.stopWatching?.();
    await this.http?.close();
    await this.target.close();
    this.store.close();
  }
}
