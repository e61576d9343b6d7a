/**
 * Simulator options and their defaults, declared once, so the CLI, the demo and tests
 * start the same service unless they say otherwise.
 */
import { type Clock, systemClock } from '../lib/clock.js';

/** An account of the simulated service; `demo` gets the restricted demo plan. */
export interface SimulatorUser {
  username: string;
  key: string;
  plan: 'premium' | 'demo';
}

/** How to run the simulator. All data is deterministic from (seed, startAt). */
export interface SimulatorOptions {
  seed: number;
  /** When true, notices and capacity cycles appear as simulated time passes. */
  live: boolean;
  /** Simulated ms per real ms. */
  speed: number;
  /** Live mode: mean notice events per simulated hour. */
  noticesPerHour: number;
  /**
   * Live mode: the service publishes new notices and updates in refreshes this far apart
   * (each a little late, by a seeded jitter); 0 publishes each the instant it happens.
   */
  refreshEveryMs: number;
  /** Notices per page for premium users (the demo account always gets 5). */
  perPage: number;
  /** Form of meta.pagination url_* values. */
  urlStyle: 'absolute' | 'path';
  users: SimulatorUser[];
  /** Serve the /_control API. */
  control: boolean;
  /** The real time source; simulated time runs from it. */
  clock: Clock;
  /** Simulated time at start. */
  startAt: Date;
  /** Days of notice history generated before startAt. */
  historyDays: number;
  /**
   * Transco's Station 85 swings around 50,000 Dth cycle after cycle, so low-OAC alerts
   * fire and resolve on their own. Off (the demo), it holds steady far above that, and
   * only what is published through the control operations moves it: the storyline's
   * drop is then the one the demo's email reports.
   */
  swing: boolean;
  /** Request log sink. */
  logger?: {
    info(obj: object, msg?: string): void;
    warn(obj: object, msg?: string): void;
  };
}

const DAY_MS = 86_400_000;

/** The defaults of every option that has one. */
export const simulatorDefaults: Readonly<Omit<SimulatorOptions, 'clock' | 'startAt' | 'logger'>> =
  Object.freeze({
    seed: 1,
    live: false,
    speed: 1,
    noticesPerHour: 6,
    refreshEveryMs: 600_000,
    perPage: 20,
    urlStyle: 'absolute' as const,
    users: [
      Object.freeze({ username: 'pipewatch', key: 'sim-premium-key', plan: 'premium' as const }),
      Object.freeze({ username: 'demo', key: 'sim-demo-key', plan: 'demo' as const }),
    ],
    control: false,
    historyDays: 60,
    swing: true,
  });

/** Fills in defaults and rejects values the simulator cannot run with. */
export function resolveOptions(input: Partial<SimulatorOptions> = {}): SimulatorOptions {
  const defined = Object.fromEntries(
    Object.entries(input).filter(([, v]) => v !== undefined),
  ) as Partial<SimulatorOptions>;
  const clock = defined.clock ?? systemClock;
  const opts: SimulatorOptions = {
    ...simulatorDefaults,
    users: simulatorDefaults.users.map((u) => ({ ...u })),
    ...defined,
    clock,
    startAt: new Date(defined.startAt ?? clock.now()),
  };
  const problems: string[] = [];
  if (!Number.isSafeInteger(opts.seed)) problems.push('seed must be an integer');
  if (!(opts.speed >= 0) || !Number.isFinite(opts.speed)) problems.push('speed must be >= 0');
  if (!(opts.noticesPerHour >= 0)) problems.push('noticesPerHour must be >= 0');
  if (
    !Number.isInteger(opts.refreshEveryMs) ||
    opts.refreshEveryMs < 0 ||
    opts.refreshEveryMs > DAY_MS
  )
    problems.push('refreshEveryMs must be a whole number of ms from 0 to a day');
  if (!Number.isInteger(opts.perPage) || opts.perPage < 1) problems.push('perPage must be >= 1');
  if (!Number.isInteger(opts.historyDays) || opts.historyDays < 0 || opts.historyDays > 366) {
    problems.push('historyDays must be an integer from 0 to 366');
  }
  if (Number.isNaN(opts.startAt.getTime())) problems.push('startAt must be a valid date');
  if (opts.urlStyle !== 'absolute' && opts.urlStyle !== 'path') {
    problems.push("urlStyle must be 'absolute' or 'path'");
  }
  if (problems.length > 0)
    throw new RangeError(`invalid simulator options: ${problems.join('; ')}`);
  return opts;
}
