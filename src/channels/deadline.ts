/**
 * The total time limit of one delivery attempt. A platform's own timeouts mostly watch
 * one phase at a time (connecting, the headers, the gap between two chunks), so a
 * receiver that answers a byte every few seconds never trips them; this limit covers the
 * whole request, connect, send and the complete answer. Each channel starts it where
 * its request starts, after its own pacing: waiting for a turn is not the receiver's
 * slowness. When it passes, the request's signal aborts (so the channel drops its
 * connection) and the attempt fails at once as a temporary failure, whether or not the
 * platform's client noticed the abort.
 */

import type { TargetKind } from '../domain/targets.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { formatDuration } from '../lib/duration.js';
import { type AttemptLimit, DeliveryError, DeliveryErrorCode, type SendContext } from './types.js';

/** The default of `PIPEWATCH_DELIVERY_TIMEOUT`. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 30_000;

/** `webhook: no complete answer within 30s`: the reason of an attempt that ran out of time. */
export function deadlineReason(kind: TargetKind, ms: number): string {
  return `${kind}: no complete answer within ${formatDuration(ms)}`;
}

/** What bounds one request. */
export interface Deadline extends AttemptLimit {
  kind: TargetKind;
  /** Where the request goes, for the reason: `(https://hooks.example.com)`. */
  where?: string | undefined;
  /** Stopping (shutdown): aborts the request too, with its own reason. */
  signal?: AbortSignal | undefined;
}

/**
 * The deadline of a request sent for `ctx`: the limit the dispatcher gave, or else the
 * channel's own (as for `send-test`), on its `clock`, real time unless a test gives one.
 */
export function deadlineFor(
  kind: TargetKind,
  ctx: Pick<SendContext, 'deadline' | 'signal'>,
  own: { ms: number; clock?: Clock | undefined },
  where?: string,
): Deadline {
  const limit = ctx.deadline ?? { ms: own.ms, clock: own.clock ?? systemClock };
  return { kind, ms: limit.ms, clock: limit.clock, where, signal: ctx.signal };
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
  // Made only when the time runs out: an error's stack costs more than the rest of the
  // bookkeeping, paid by every request.
  let expired: DeliveryError | undefined;
  const own = new AbortController();
  // `any` follows the parent without adding a listener to it: attempts in flight at once
  // would otherwise pile listeners on the one shutdown signal.
  const signal = parent ? AbortSignal.any([parent, own.signal]) : own.signal;
  const timer = new AbortController();
  const ranOut = new Promise<never>((_, reject) => {
    clock.sleep(ms, timer.signal).then(
      () => {
        const where = deadline.where ? ` (${deadline.where})` : '';
        expired = new DeliveryError(`${deadlineReason(deadline.kind, ms)}${where}`, {
          code: DeliveryErrorCode.Timeout,
          permanent: false,
        });
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
    throw expired ?? error;
  } finally {
    // With a reason of its own: a bare abort would make (and throw away) a DOMException.
    timer.abort(ANSWERED);
  }
}

/** Why a deadline's timer is called off: the attempt ended first. */
const ANSWERED = Symbol('answered');
