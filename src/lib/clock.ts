/**
 * Time as a dependency. Everything that reads the time or waits takes a `Clock`, so
 * schedules, retries and reminders can be tested instantly and deterministically.
 */
export interface Clock {
  /** The current instant. */
  now(): Date;
  /** Resolves after `ms` milliseconds; rejects with the signal's reason if aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The longest delay Node's timers keep (2^31 - 1 ms, about 24.8 days): a longer one,
 * `Infinity` included, fires after 1 ms instead, so a wait asked of a single timer turns
 * into a busy loop.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The timer functions a clock waits with: the global ones, or a test's. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * A wall clock waiting with `timers`. A wait longer than `MAX_TIMER_MS` is made of
 * timers one after another, so every caller waits as long as it asked whatever the
 * duration: `Infinity` waits until aborted; a negative or `NaN` one not at all.
 */
export function timerClock(timers: Timers): Clock {
  return {
    now: () => new Date(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        let remaining = ms > 0 ? ms : 0;
        let timer: unknown;
        const onAbort = () => {
          timers.clearTimeout(timer);
          reject(signal?.reason);
        };
        const arm = () => {
          const step = Math.min(remaining, MAX_TIMER_MS);
          remaining -= step;
          timer = timers.setTimeout(() => {
            if (remaining > 0) {
              arm();
              return;
            }
            signal?.removeEventListener('abort', onAbort);
            resolve();
          }, step);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        arm();
      }),
  };
}

/** The wall clock. */
export const systemClock: Clock = timerClock({
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
});

/**
 * A clock running `speed` times faster than `base`, reading its time from `now` (the
 * demo's simulator, whose clock runs that fast): waits last `1 / speed` of what they ask.
 */
export function acceleratedClock(base: Clock, now: () => Date, speed: number): Clock {
  return { now, sleep: (ms, signal) => base.sleep(ms / speed, signal) };
}
