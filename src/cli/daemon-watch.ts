/**
 * How the daemon watches itself: each feed run and each delivery feed the outage alerts
 * (`alerts/outage-watch.ts`), and each notices poll of the running daemon pings the
 * heartbeat, `run --once` once at its end. Only the process that polls and sends gets
 * here (there is one), so only it can say that it sees.
 */
import { OutageWatch, type OutageWatchDeps } from '../alerts/outage-watch.js';
import type { DeliveryWatch } from '../delivery/sender.js';
import type { Target } from '../domain/targets.js';
import { NOTICES_FEED } from '../ingest/notice-sync.js';
import type { FeedOutcome } from '../ingest/scheduler.js';
import { Heartbeat } from '../lib/heartbeat.js';
import type { Logger } from '../lib/logger.js';

export class DaemonWatch implements DeliveryWatch {
  /** Made once the feeds are known; nothing is delivered before. */
  private outages: OutageWatch | undefined;
  /** The dead man's switch, when `PIPEWATCH_HEARTBEAT_URL` is set. */
  private readonly heartbeat: Heartbeat | undefined;
  /** Set while the daemon runs (not `runOnce`): each notices poll then pings. */
  running = false;

  constructor(heartbeatUrl: string | undefined, logger: Logger) {
    this.heartbeat = heartbeatUrl ? new Heartbeat(heartbeatUrl, { logger }) : undefined;
  }

  /** Starts judging outages of these feeds and of delivery. */
  watchOutages(deps: OutageWatchDeps): void {
    this.outages = new OutageWatch(deps);
  }

  /** After each feed run (the scheduler's `onOutcome`). */
  readonly afterRun = (outcome: FeedOutcome): void => {
    // The outage watch catches and logs its own failures.
    void this.outages?.feedRan(outcome);
    if (outcome.feed === NOTICES_FEED && this.running) this.heartbeat?.beat(outcome.ok);
  };

  delivered(target: Target): void {
    void this.outages?.delivered(target);
  }

  failedForGood(target: Target, reason: string, code: string | null): void {
    void this.outages?.failedForGood(target, reason, code);
  }

  /** The one heartbeat of `run --once`, waited for (within its timeout). */
  async onceDone(ok: boolean): Promise<void> {
    if (!this.heartbeat) return;
    this.heartbeat.beat(ok);
    await this.heartbeat.flush();
  }
}
