/**
 * The work the daemon's scheduler runs: the ingest feeds, with the alert engine deciding
 * on what they bring in and the dispatcher woken as soon as it has decided, and the
 * reminders feed; and the capacity plan those feeds fetch by.
 */
import type { AlertEngine } from '../alerts/engine.js';
import { type CapacityPlan, capacityPlan } from '../ingest/capacity-plan.js';
import type { IngestDeps, IngestHooks } from '../ingest/events.js';
import { buildFeeds, type FeedSettings } from '../ingest/feeds.js';
import type { Feed } from '../ingest/scheduler.js';

/** The daemon's parts the feeds use. */
export interface DaemonFeedParts extends Omit<IngestDeps, 'hooks'> {
  engine: AlertEngine;
  /** Wakes the dispatcher: something may be due for delivery. */
  wake: () => void;
}

/** What the configuration says of the feeds. */
export interface DaemonFeedOptions {
  settings: FeedSettings;
  /** Ingest events, besides deciding alerts on them (the demo prints them). */
  hooks?: IngestHooks | undefined;
  /** How often due reminders are decided; default 15 s. */
  alertsIntervalMs?: number | undefined;
}

/** The feeds to schedule, the reminders feed last, and the capacity plan they follow. */
export function daemonFeeds(
  parts: DaemonFeedParts,
  options: DaemonFeedOptions,
): { feeds: Feed[]; plan: () => Promise<CapacityPlan> } {
  const { engine, wake, store } = parts;
  const deps: IngestDeps = {
    client: parts.client,
    store,
    clock: parts.clock,
    logger: parts.logger,
    hooks: engine.hooks({
      notices: async (events) => {
        await options.hooks?.notices?.(events);
        wake();
      },
      capacity: async (event) => {
        await options.hooks?.capacity?.(event);
        wake();
      },
      ...(options.hooks?.schemaDrift ? { schemaDrift: options.hooks.schemaDrift } : {}),
    }),
    metrics: parts.metrics,
  };
  const alerts: Feed = {
    name: 'alerts',
    intervalMs: options.alertsIntervalMs ?? 15_000,
    run: async () => {
      const { sent, summaries, ended, escalations } = await engine.runReminders();
      if (sent + summaries + ended + escalations > 0) wake();
    },
  };
  const plan = async () =>
    capacityPlan(
      await engine.rules(),
      options.settings.capacityPipelines,
      (await store.pipelines.all()).map((p) => p.slug),
    );
  return { feeds: [...buildFeeds(deps, options.settings, plan), alerts], plan };
}
