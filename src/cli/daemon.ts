/**
 * Wiring of the daemon shared by `run` and `demo`: the rules, the API client, the store,
 * the alert engine on the ingest hooks, the feeds and their scheduler, the delivery
 * channels and their dispatcher, and the HTTP endpoints.
 */

import { AlertEngine } from '../alerts/engine.js';
import { ChatCore } from '../chat/service.js';
import { type DeliveryBacklog, deliveryBacklog } from '../delivery/backlog.js';
import { CHANNEL_SETTINGS, type Channels } from '../delivery/channels.js';
import { Dispatcher, type DispatchResult } from '../delivery/dispatcher.js';
import type { DiscordApp } from '../frontends/discord/app.js';
import type { SlackApp } from '../frontends/slack/app.js';
import { withDelivery } from '../http/health.js';
import { Metrics } from '../http/metrics.js';
import { type FullStatus, withErrorCodes } from '../http/public-view.js';
import type { RunningHttpServer } from '../http/server.js';
import { CAPACITY_PIPELINES_VARIABLE, type CapacityPlan } from '../ingest/capacity-plan.js';
import { planReport, statusReport } from '../ingest/feeds.js';
import { type FeedOutcome, Scheduler } from '../ingest/scheduler.js';
import type { Clock } from '../lib/clock.js';
import type { HttpRoute } from '../lib/http-route.js';
import type { Rule } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import { DatabaseError, NOT_LEADER } from '../store/database.js';
import type { OpenedStore } from '../store/open.js';
import { unsubscribeKey, unsubscribeRoutes } from '../unsubscribe/routes.js';
import type { ApiTarget } from './api-target.js';
import type { CliContext } from './context.js';
import {
  discordAppSettings,
  slackAppSettings,
  startChat,
  startDiscordChat,
} from './daemon-chat.js';
import { daemonFeeds } from './daemon-feeds.js';
import { reportExposure, startDaemonHttp } from './daemon-http.js';
import { type Lead, leadOnce, Terms } from './daemon-roles.js';

export type { DaemonSetup } from './daemon-setup.js';

import { openChannels, openStoreAndApi, rulesInForce } from './daemon-open.js';
import { reloadRulesOnChange } from './daemon-reload.js';
import type { DaemonSetup } from './daemon-setup.js';
import { DaemonWatch } from './daemon-watch.js';
import { latestLocationsOf } from './latest-locations.js';

/** A wired daemon. */
export class Daemon {
  private http: RunningHttpServer | undefined;
  /** The Slack app, when chat is on and Slack's app credentials are set. */
  private slack: SlackApp | undefined;
  /** The Discord app, when chat is on and Discord's public key is set. */
  private discord: DiscordApp | undefined;
  private stopWatching: (() => void) | undefined;
  /** The daemon's time (see `DaemonSetup.clock`). */
  readonly clock: Clock;

  private constructor(
    private readonly ctx: CliContext,
    /** What the daemon was wired with. */
    readonly setup: DaemonSetup,
    readonly target: ApiTarget,
    /** The store, closed with the daemon. */
    private readonly opened: OpenedStore,
    /** Whether this replica leads: the lease on PostgreSQL, always on SQLite. */
    private readonly lead: Lead,
    readonly metrics: Metrics,
    readonly engine: AlertEngine,
    readonly scheduler: Scheduler,
    readonly channels: Channels,
    readonly dispatcher: Dispatcher,
    /** What the capacity feed fetches, as the rules in force and the pipeline list say now. */
    readonly capacityPlan: () => Promise<CapacityPlan>,
    readonly startedAt: Date,
    /** Outage alerts and the heartbeat. */
    private readonly watch: DaemonWatch,
    /** What people in chat are answered by, whichever app they use. */
    readonly chatCore: ChatCore,
  ) {
    this.clock = setup.clock ?? ctx.clock;
    this.store = opened.store;
    this.terms = new Terms(
      lead,
      { logger: ctx.logger, metrics, replicated: opened.kind === 'postgres' },
      (signal) => this.leadTerm(signal),
    );
  }

  /** The terms this replica leads, each a run of the scheduler and the dispatcher. */
  private readonly terms: Terms;

  /** The store every part of the daemon reads and writes. */
  readonly store: AsyncStore;

  /**
   * Starts a daemon in steps, each undone when a later one fails: the rules read, the
   * channels opened and checked against them, the store and the API opened, the parts
   * that poll, decide and deliver put together, then the chat apps and the HTTP server.
   */
  static async create(ctx: CliContext, setup: DaemonSetup): Promise<Daemon> {
    const rules = rulesInForce(ctx, setup);
    // Filled in once the store is open: a channel gone before then is retold on the next
    // send, and emails are rendered only once the unsubscribe links' key is known.
    const late: { chat?: ChatCore; linkKey?: string; store?: AsyncStore } = {};
    const channels = await openChannels(ctx, setup, rules, late);
    const clock = setup.clock ?? ctx.clock;
    const { opened, lead, target } = await openStoreAndApi(ctx, setup, channels);
    late.linkKey = await unsubscribeKey(opened.store, setup.secretKey, clock);
    late.store = opened.store;
    const daemon = Daemon.assemble(ctx, setup, { rules, channels, opened, lead, target, clock });
    late.chat = daemon.chatCore;
    await daemon.engine.checkPipelines();
    await daemon.engine.checkLocations();
    await daemon.startChatApps();
    if (setup.httpPort !== undefined) {
      try {
        await daemon.startHttp(setup.httpPort, late.linkKey);
      } catch (error) {
        await daemon.close();
        throw error;
      }
    }
    return daemon;
  }

  /** The parts that poll, decide, deliver and answer chat, around an open store and API. */
  private static assemble(
    ctx: CliContext,
    setup: DaemonSetup,
    open: {
      rules: Rule[];
      channels: Channels;
      opened: OpenedStore;
      lead: Lead;
      target: ApiTarget;
      clock: Clock;
    },
  ): Daemon {
    const { channels, target, clock } = open;
    const { store } = open.opened;
    // A fenced write refused: another replica leads. The term ends; the lease follows.
    let endTerm = () => {};
    const metrics = new Metrics();
    const startedAt = clock.now();
    const watch = new DaemonWatch(setup.heartbeatUrl, ctx.logger);
    const dispatcher = new Dispatcher(
      {
        store,
        channels,
        clock,
        logger: ctx.logger,
        metrics,
        watch,
        onNotLeader: () => endTerm(),
      },
      {
        digestWindowMs: setup.delivery.digestWindowMs,
        maxAgeMs: setup.delivery.maxAgeMs,
        timeoutMs: setup.delivery.timeoutMs,
        secrets: setup.secrets ?? [],
      },
    );
    const wake = () => dispatcher.wake();
    const engine = new AlertEngine(
      {
        store,
        clock,
        logger: ctx.logger,
        maxAlertAgeMs: setup.settings.maxAlertAgeMs,
        opsTarget: setup.opsTarget,
        pipelineSettings: {
          PIPEWATCH_PIPELINES: setup.settings.pipelines,
          [CAPACITY_PIPELINES_VARIABLE]: setup.settings.capacityPipelines,
        },
      },
      open.rules,
    );
    const chatCore = new ChatCore({
      store,
      engine,
      clock,
      logger: ctx.logger,
      policy: { admins: new Set(setup.chat?.admins ?? []) },
      limits: setup.chat?.limits,
      opsTarget: setup.opsTarget,
      wake,
      undelivered: (kind) => (channels.configured(kind) ? undefined : CHANNEL_SETTINGS[kind]),
      latestLocations: (slug) => latestLocationsOf(target.client, slug),
    });
    const { feeds, plan } = daemonFeeds(
      { client: target.client, store, clock, logger: ctx.logger, metrics, engine, wake },
      setup,
    );
    watch.watchOutages({
      store,
      clock,
      logger: ctx.logger,
      opsTarget: setup.opsTarget,
      feeds,
      startedAt,
      stuckAfterMs: setup.delivery.stuckAfterMs,
      secrets: setup.secrets ?? [],
      wake,
    });
    const scheduler = new Scheduler(
      {
        store,
        clock,
        logger: ctx.logger,
        metrics,
        onOutcome: watch.afterRun,
        onNotLeader: () => endTerm(),
      },
      feeds,
    );
    const daemon = new Daemon(
      ctx,
      setup,
      target,
      open.opened,
      open.lead,
      metrics,
      engine,
      scheduler,
      channels,
      dispatcher,
      plan,
      startedAt,
      watch,
      chatCore,
    );
    metrics.watchDelivery(() => daemon.backlog());
    endTerm = () => daemon.terms.endTerm();
    return daemon;
  }

  /**
   * The Slack app when chat is on and its credentials are set, and the Discord app when
   * its interactions can be verified.
   */
  private async startChatApps(): Promise<void> {
    const { ctx, setup, chatCore, store } = this;
    const slackApp = setup.chat ? slackAppSettings(setup.channels.slack) : undefined;
    const discordSettings = discordAppSettings(setup.channels.discord);
    const { interactions } = store;
    if (slackApp) this.slack = await startChat(ctx, slackApp, chatCore, interactions);
    if (setup.chat && discordSettings)
      this.discord = await startDiscordChat(ctx, discordSettings, chatCore, interactions);
  }

  /**
   * `/healthz`, `/status` and `/metrics`, the chat apps' endpoints when they run over
   * HTTP, and the unsubscribe links, always: links in mail already sent keep working
   * whatever is set now.
   */
  private async startHttp(port: number, linkKey: string): Promise<void> {
    const { ctx, setup } = this;
    const routes: HttpRoute[] = [
      ...(this.slack?.routes ?? []),
      ...(this.discord?.routes ?? []),
      ...unsubscribeRoutes({
        store: this.store,
        clock: this.clock,
        logger: ctx.logger,
        key: linkKey,
      }),
    ];
    this.http = await startDaemonHttp(this, {
      routes,
      port,
      host: setup.httpHost,
      statusToken: setup.statusToken,
      metrics: this.metrics,
      logger: ctx.logger,
    });
    reportExposure(ctx.logger, this.http, setup.statusToken !== undefined);
  }

  /**
   * Health with each feed's error as its code, and stuck deliveries by channel kind, for
   * readers without the status token.
   */
  async publicHealth() {
    const feeds = await this.scheduler.health(this.clock.now(), this.startedAt, withErrorCodes);
    return { ...withDelivery(feeds, await this.backlog()), role: this.lead.role };
  }

  /** This replica's role now: the leader polls, decides and sends. */
  get role(): 'leader' | 'standby' {
    return this.lead.role;
  }

  /** What waits in the outbox per target, each judged against the stuck threshold. */
  backlog(): Promise<DeliveryBacklog> {
    return deliveryBacklog(this.store, this.clock.now(), this.setup.delivery.stuckAfterMs);
  }

  /** The HTTP server's base URL, when it runs. */
  get httpUrl(): string | undefined {
    return this.http?.url;
  }

  /** The full status: errors as they were, dead deliveries' reasons, rule names. */
  async status(): Promise<FullStatus> {
    const backlog = await this.backlog();
    return {
      ...(await statusReport(this.store, this.clock.now(), {
        feeds: this.scheduler.feeds,
        startedAt: this.startedAt,
        health: withDelivery(
          await this.scheduler.health(this.clock.now(), this.startedAt),
          backlog,
        ),
        capacityPlan: await planReport(
          this.store,
          await this.capacityPlan(),
          this.setup.settings.capacityIntervalMs,
        ),
      })),
      outbox: await this.store.outbox.summary(),
      delivery: backlog,
      rules: (await this.engine.rules()).length,
    };
  }

  /**
   * Every feed once, the alerts feed last, then every due delivery: waits for retries
   * that fall due within `onceDrainMs`; later ones stay for the next run. Then one
   * heartbeat, `/fail` when a feed failed, waited for (within its timeout).
   */
  async runOnce(): Promise<{ feeds: FeedOutcome[]; delivery: DispatchResult }> {
    const led = await leadOnce(this.lead);
    if (led !== true)
      throw new DatabaseError(
        `another replica (${led.holder}) leads on this database and polls, decides and sends; 'run --once' runs only while none does`,
        { code: NOT_LEADER },
      );
    await this.dispatcher.recover();
    const feeds = await this.scheduler.runOnce(this.signal);
    const delivery = await this.dispatcher.drain(this.setup.onceDrainMs ?? 60_000, this.signal);
    await this.watch.onceDone(feeds.every((f) => f.ok));
    return { feeds, delivery };
  }

  /** Every feed on its schedule until its signal aborts; rule files reload on change. */
  async run(): Promise<void> {
    const watcher = reloadRulesOnChange({
      rulesDir: this.setup.rulesDir,
      cwd: this.ctx.io.cwd,
      logger: this.ctx.logger,
      engine: this.engine,
      channels: this.channels,
      standIn: this.setup.standIn ?? false,
    });
    this.stopWatching = () => watcher.close();
    try {
      await this.terms.run(this.signal);
    } finally {
      this.stopWatching();
    }
  }

  /** One term of leadership: every feed on its schedule, and sending, until `signal`. */
  private async leadTerm(signal: AbortSignal): Promise<void> {
    this.watch.running = true;
    try {
      await Promise.all([this.scheduler.start(signal), this.dispatcher.run(signal)]);
    } finally {
      this.watch.running = false;
    }
  }

  private get signal(): AbortSignal {
    return this.setup.signal ?? this.ctx.signal;
  }

  /** Stops serving, closes connections and the database. */
  async close(): Promise<void> {
    this.stopWatching?.();
    await this.slack?.close();
    await this.discord?.close();
    await this.http?.close();
    await this.target.close();
    await this.channels.close();
    await this.lead.stop();
    await this.opened.close();
  }
}
