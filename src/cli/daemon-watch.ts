/**
 * How the daemon watches itself: each feed run and each delivery feed the outage alerts
 * (`alerts/outage-watch.ts`). Only the process that polls and sends gets here (there is
 * one), so only it can say that it sees.
 */
import { OutageWatch, type OutageWatchDeps } from '../alerts/outage-watch.js';
import type { DeliveryWatch } from '../delivery/sender.js';
import type { Target } from '../domain/targets.js';
import type { FeedOutcome } from '../ingest/scheduler.js';

export class DaemonWatch implements DeliveryWatch {
  /** Made once the feeds are known; nothing is delivered before. */
  private outages: OutageWatch | undefined;

  /** Starts judging outages of these feeds and of delivery. */
  watchOutages(deps: OutageWatchDeps): void {
    this.outages = new OutageWatch(deps);
  }

  /** After each feed run (the scheduler's `onOutcome`). */
  readonly afterRun = (outcome: FeedOutcome): void => {
    this.outages?.feedRan(outcome);
  };

  delivered(target: Target): void {
    this.outages?.delivered(target);
  }

  failedForGood(target: Target, reason: string, code: string | null): void {
    this.outages?.failedForGood(target, reason, code);
  }
}
