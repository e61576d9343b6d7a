import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, type Timers, timerClock } from '../../src/lib/clock.js';

/**
 * Timers on a time the test moves, keeping Node's rule for long delays: one above
 * 2^31 - 1 ms (or not a finite number) fires after 1 ms, with a warning Node prints.
 */
class NodeLikeTimers implements Timers {
  now = 0;
  /** Every delay armed, as asked. */
  readonly armed: number[] = [];
  private timers = new Map<number, { at: number; callback: () => void }>();
  private next = 1;

  setTimeout(callback: () => void, ms: number): unknown {
    this.armed.push(ms);
    const delay = Number.isFinite(ms) && ms <= MAX_TIMER_MS ? Math.max(1, ms) : 1;
    const id = this.next++;
    this.timers.set(id, { at: this.now + delay, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Moves time forward, firing due timers in order (and those they arm, when due). */
  advance(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      const due = [...this.timers.entries()]
        .filter(([, t]) => t.at <= until)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.now = due[1].at;
      due[1].callback();
    }
    this.now = until;
  }

  get pending(): number {
    return this.timers.size;
  }
}

/** Lets settled promises run their callbacks. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

function watch(promise: Promise<void>) {
  const state = { settled: false, error: undefined as unknown };
  promise.then(
    () => {
      state.settled = true;
    },
    (error: unknown) => {
      state.settled = true;
      state.error = error;
    },
  );
  return state;
}

const DAY = 86_400_000;

describe('the wall clock', () => {
  it('waits the whole of a wait longer than a timer can hold, never a timer above the limit', async () => {
    const timers = new NodeLikeTimers();
    const clock = timerClock(timers);
    const sleep = watch(clock.sleep(60 * DAY));
    timers.advance(1);
    await flush();
    expect(sleep.settled).toBe(false);
    timers.advance(59 * DAY - 2);
    await flush();
    expect(sleep.settled).toBe(false);
    timers.advance(DAY + 1);
    await flush();
    expect(sleep.settled).toBe(true);
    expect(Math.max(...timers.armed)).toBeLessThanOrEqual(MAX_TIMER_MS);
    expect(timers.armed.reduce((a, b) => a + b, 0)).toBe(60 * DAY);
  });

  it('waits out a Retry-After of 999999999 seconds rather than firing at once', async () => {
    const timers = new NodeLikeTimers();
    const sleep = watch(timerClock(timers).sleep(999_999_999_000));
    timers.advance(365 * DAY);
    await flush();
    expect(sleep.settled).toBe(false);
    expect(timers.pending).toBe(1);
  });

  it('waits for ever on Infinity until aborted, and a negative or NaN wait not at all', async () => {
    const timers = new NodeLikeTimers();
    const clock = timerClock(timers);
    const abort = new AbortController();
    const forever = watch(clock.sleep(Number.POSITIVE_INFINITY, abort.signal));
    timers.advance(1000 * DAY);
    await flush();
    expect(forever.settled).toBe(false);
    abort.abort(new Error('stopping'));
    await flush();
    expect(forever.error).toEqual(new Error('stopping'));
    expect(timers.pending).toBe(0);

    const none = [watch(clock.sleep(-5)), watch(clock.sleep(Number.NaN))];
    timers.advance(1);
    await flush();
    expect(none.map((s) => s.settled)).toEqual([true, true]);
    expect(timers.armed.slice(-2)).toEqual([0, 0]);
  });

  it('an ordinary wait is one timer, and an abort clears it', async () => {
    const timers = new NodeLikeTimers();
    const clock = timerClock(timers);
    const done = watch(clock.sleep(30_000));
    timers.advance(29_999);
    await flush();
    expect(done.settled).toBe(false);
    timers.advance(1);
    await flush();
    expect(done).toMatchObject({ settled: true, error: undefined });
    expect(timers.armed).toEqual([30_000]);

    const abort = new AbortController();
    const aborted = watch(clock.sleep(30_000, abort.signal));
    abort.abort(new Error('stop'));
    await flush();
    expect(aborted.error).toEqual(new Error('stop'));
    expect(timers.pending).toBe(0);
  });
});
