/**
 * The log of requests refused at the door (a bad or missing signature, a body too large,
 * a replay): a line for the first of each status, then at most one a minute, each saying
 * how many went unlogged since. A flood of forged requests costs the log a line a minute
 * instead of a line a request, and a single refusal, the one a person setting up the app
 * needs to see, is still logged at once with its reason.
 */
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import { counted } from './words.js';

/** The shortest time between two lines of the same status. */
export const REFUSAL_LOG_EVERY_MS = 60_000;

export class RefusalLog {
  private readonly last = new Map<number, { at: number; unlogged: number }>();

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly everyMs = REFUSAL_LOG_EVERY_MS,
  ) {}

  /** Notes that a request to `path` was answered `status` because `why`. */
  refused(status: number, path: string, why: string): void {
    const now = this.clock.now().getTime();
    const seen = this.last.get(status);
    if (seen && now - seen.at < this.everyMs) {
      seen.unlogged += 1;
      return;
    }
    const unlogged = seen?.unlogged ?? 0;
    const since =
      unlogged > 0
        ? ` (${counted(unlogged, 'more request')} refused ${status} since the last line)`
        : '';
    this.log.warn(
      { status, ...(unlogged > 0 ? { unlogged } : {}) },
      `refused a request to ${path}: ${why}${since}`,
    );
    this.last.set(status, { at: now, unlogged: 0 });
  }
}
