/**
 * The total time limit of one delivery attempt. A platform's own timeouts mostly watch
 * one phase at a time (connecting, the headers, the gap between two chunks), so a
 * receiver that answers a byte every few seconds never trips them; this limit covers the
 * whole attempt, connect, send and the complete answer. When it passes, the attempt's
 * signal aborts (so the channel drops its connection) and the attempt fails at once as
 * a temporary failure, whether or not the channel noticed the abort.
 */
import type { Clock } from '../lib/clock.js';
import { formatDuration } from '../lib/duration.js';
import type { TargetKind } from '../rules/types.js';
import { DeliveryError } from './types.js';

/** The default of `PIPEWATCH_DELIVERY_TIMEOUT`. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 30_000;

/** `webhook: no complete answer within 30s`: the reason of an attempt that ran out of time. */
export function deadlineReason(kind: TargetKind, ms: number): string {
  return `${kind}: no complete answer within ${formatDuration(ms)}`;
}

/** What bounds one attempt. */
export interface Deadline {
  kind: TargetKind;
  ms: number;
  /** Whose time counts: real time for platforms, an injected clock in tests. */
  clock: Clock;
  /** Stopping (shutdown): aborts the attempt too, with its own reason. */
  signal?: AbortSignal | undefined;
}

/**
 * Runs `attempt` with a signal that aborts when `deadline.signal` does or when the time
 * runs out; in the latter case rejects with a temporary `DeliveryError` saying so.
 */
export async function withDeadline<T>(
  deadline: Deadline,
  attempt: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const { clock, ms, signal: parent } = deadline;
  const expired = new DeliveryError(deadlineReason(deadline.kind, ms), { permanent: false });
  const own = new AbortController();
  // `any` follows the parent without adding a listener to it: attempts in flight at once
  // would otherwise pile listeners on the one shutdown signal.
  const signal = parent ? AbortSignal.any([parent, own.signal]) : own.signal;
  const timer = new AbortController();
  let timedOut = false;
  const ranOut = new Promise<never>((_, reject) => {
    clock.sleep(ms, timer.signal).then(
      () => {
        timedOut = true;
        own.abort(expired);
        reject(expired);
      },
      () => undefined,
    );
  });
  ranOut.catch(() => undefined);
  const running = attempt(signal);
  // Once the time ran out the attempt's own end is of no interest, failure included.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, ranOut]);
  } catch (error) {
    throw timedOut ? expired : error;
  } finally {
    timer.abort();
  }
}
