/**
 * Simulated time: the real clock, sped up and shifted. The simulator never reads the
 * clock any other way, so a ManualClock drives everything it does.
 */
import type { Clock } from '../lib/clock.js';

/** Milliseconds per minute, for readable arithmetic. */
export const MINUTE = 60_000;
/** Milliseconds per hour. */
export const HOUR = 3_600_000;
/** Milliseconds per (24-hour) day; calendar days in a zone come from gas-day.ts. */
export const DAY = 86_400_000;

/** `startAt + (clock.now() − clock at start) × speed + advanced`. */
export class SimTime {
  private readonly realStart: number;
  private offset = 0;

  constructor(
    private readonly clock: Clock,
    readonly startAt: Date,
    private readonly speed: number,
  ) {
    this.realStart = clock.now().getTime();
  }

  /** The simulated instant, in ms since the epoch. */
  nowMs(): number {
    const elapsed = this.clock.now().getTime() - this.realStart;
    return this.startAt.getTime() + Math.round(elapsed * this.speed) + this.offset;
  }

  /** The simulated instant. */
  now(): Date {
    return new Date(this.nowMs());
  }

  /** Moves simulated time forward without touching the real clock. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`advance needs a non-negative number of ms, got ${ms}`);
    }
    this.offset += ms;
  }
}

/** The API's datetime form, `YYYY-MM-DD HH:MM:SS` in UTC. */
export function formatDateTime(at: number | Date): string {
  return new Date(at).toISOString().slice(0, 19).replace('T', ' ');
}

/** Reads the API's datetime form back into ms, or NaN when it is not one. */
export function parseDateTime(text: string): number {
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text)) return Number.NaN;
  return Date.parse(`${text.replace(' ', 'T')}Z`);
}
