/**
 * Whether this replica may still send, as the outbox's writes tell it: on PostgreSQL
 * the writes only the leader makes are fenced by its lease, and one refused with
 * `not_leader` means another replica took it. Sending then stops at once (the signal
 * of the run aborts, with the refusal as its reason, which cuts the sends in flight
 * short), once: said at warn, told to `onNotLeader`. The claims are the new leader's to
 * release and send again.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from '../lib/logger.js';
import { type DatabaseError, isNotLeader } from '../store/database.js';

export class Leadership {
  private lead = new AbortController();

  constructor(
    private readonly logger: Logger,
    private readonly onNotLeader: ((error: DatabaseError) => void) | undefined,
  ) {}

  /**
   * Begins a run of sending, leading until told otherwise; the signal that ends it:
   * `signal` aborted, or the lead lost.
   */
  begin(signal: AbortSignal | undefined): AbortSignal {
    this.lead = new AbortController();
    const stop = signal ? AbortSignal.any([signal, this.lead.signal]) : this.lead.signal;
    // Every lane's request listens to it, one per target in flight: hundreds in a burst.
    setMaxListeners(0, stop);
    return stop;
  }

  /** Whether a write since `begin` said another replica leads. */
  get lost(): boolean {
    return this.lead.signal.aborted;
  }

  /**
   * When `error` says another replica leads: stops the run (the first time only, said
   * then) and returns true; false for any other error, which is the caller's.
   */
  lose(error: unknown, inFlight: number): error is DatabaseError {
    if (!isNotLeader(error)) return false;
    if (this.lost) return true;
    this.lead.abort(error);
    this.logger.warn(
      { err: error, in_flight: inFlight },
      'delivery stopped: another replica leads now and sends what this one had claimed',
    );
    this.onNotLeader?.(error as DatabaseError);
    return true;
  }
}
