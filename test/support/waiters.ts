/**
 * Waiting on a fake server without sleeping: a test names a condition, the fake re-checks
 * it after each request it answers, and the wait ends as soon as it holds (or fails,
 * naming what it waited for, after a deadline). Every fake that offers `until` shares
 * this, so they all give up the same way.
 */

/** The pending conditions of one fake, and the way to wait on a new one. */
export interface Waiters {
  /** Re-checks every pending condition; the fake calls it after each request it answers. */
  check(): void;
  /**
   * Resolves once `done()` holds, checked now and at each `check()`; rejects after
   * `withinMs` naming `what`.
   */
  until(what: string, done: () => boolean, withinMs: number): Promise<void>;
}

/** Waiters of the fake named `fake` ("Slack", "Discord"), which their errors name. */
export function createWaiters(fake: string): Waiters {
  const pending = new Set<() => void>();
  return {
    check() {
      for (const check of [...pending]) check();
    },
    until(what, done, withinMs) {
      return new Promise<void>((resolve, reject) => {
        const finish = (error?: Error) => {
          clearTimeout(timer);
          pending.delete(check);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (done()) finish();
        };
        const timer = setTimeout(
          () =>
            finish(new Error(`the fake ${fake} gave up after ${withinMs} ms waiting for ${what}`)),
          withinMs,
        );
        pending.add(check);
        check();
      });
    },
  };
}
