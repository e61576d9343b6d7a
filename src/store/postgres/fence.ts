/**
 * Fencing: what a leader writes under its term must change nothing once another replica
 * has taken the lease, however late the write arrives (a leader paused mid-send, a
 * statement stuck in the network). A claim of outbox rows, or marking one sent, carries
 * `fencedBy()` in its WHERE clause, with the leader's `Fence` (`LeaderLease.fence()`).
 * The lock it takes holds off the leader's own renewal too, until the write's transaction
 * ends: fenced transactions are kept short (the statement that claims or confirms, not a
 * whole send).
 */

/** A term of a lease, as a claim made under it records it. */
export interface Fence {
  name: string;
  holder: string;
  term: number;
  /**
   * How long a transaction begun under this term may sit idle before the server ends it
   * (the lease's margin): a leader paused mid-transaction (SIGSTOP, a frozen host) would
   * otherwise keep its locks, the lease row's among them, for the minute every
   * transaction is allowed, and its successor could neither take the lease nor write the
   * rows it holds until then. Unset: that minute.
   */
  idleMs?: number;
}

/**
 * The SQL condition that holds only while `holder` holds lease `name` at `term`, its
 * three values the parameters from `$first` (`fenceValues`). It locks the lease row
 * (FOR SHARE) until the statement's transaction ends, so a takeover waits for a fenced
 * write already under way, and a fenced write after a takeover finds the term gone.
 */
export function fencedBy(first: number): string {
  return `EXISTS (SELECT 1 FROM leader_lease WHERE name = $${first} AND holder = $${first + 1}
    AND term = $${first + 2} AND expires_at > now() FOR SHARE)`;
}

/** The parameters of `fencedBy` for a fence. */
export function fenceValues(fence: Fence): [string, string, number] {
  return [fence.name, fence.holder, fence.term];
}
