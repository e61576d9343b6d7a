/**
 * Clocks for tests: time that moves only when a test moves it, so schedules, retries and
 * reminders run instantly and the same way every time.
 */
import type { Clock } from '../../src/lib/clock.js';

interface Sleeper {
  until: number;
  /** Settles the sleep as done, letting go of its signal. */
  wake: () => void;
}

/**
 * A clock that moves only when told to. `sleep` returns a promise that settles when
 * `advance` moves the time past its deadline, so code that waits can be driven step by
 * step. `sleeps` records every requested wait, for assertions on backoff and Retry-After.
 * A sleep holds a listener on its signal only while it waits, so a loop that sleeps
 * again and again on one signal never piles them up.
 */
export class ManualClock implements Clock {
  private current: number;
  private sleepers: Sleeper[] = [];
  /** Every duration passed to `sleep`, in call order. */
  readonly sleeps: number[] = [];

  constructor(start: Date | string | number = '2026-11-20T15:00:00Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      const sleeper: Sleeper = {
        until: this.current + Math.max(0, ms),
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Moves the time forward and wakes every sleeper whose deadline has passed. */
  advance(ms: number): void {
    this.current += ms;
    const due = this.sleepers.filter((s) => s.until <= this.current);
    this.sleepers = this.sleepers.filter((s) => s.until > this.current);
    for (const s of due) s.wake();
  }

  /** Sets the time to an instant (forward only) and wakes due sleepers. */
  set(to: Date | string): void {
    this.advance(Math.max(0, new Date(to).getTime() - this.current));
  }

  /** Number of sleeps currently waiting. */
  get pending(): number {
    return this.sleepers.length;
  }
}

/**
 * A clock whose `sleep` returns at once while still recording the durations and moving
 * `now` forward by them: for code that should not actually wait in tests (retry backoff).
 */
export class InstantClock implements Clock {
  private current: number;
  readonly sleeps: number[] = [];

  constructor(start: Date | string | number = '2026-11-20T15:00:00Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(ms);
    this.current += Math.max(0, ms);
  }
}
