/**
 * The state of one simulated service: its time, catalog, notices, capacity and faults.
 * The HTTP routes and the control API both work on this object and nothing else.
 */
import { addDays } from '../domain/gas-day.js';
import { CapacityBook } from './capacity.js';
import { Catalog } from './catalog.js';
import { FaultQueue } from './faults.js';
import { NoticeGenerator } from './notice-generator.js';
import { NoticeStore } from './notice-store.js';
import type { SimulatorOptions, SimulatorUser } from './options.js';
import { Random } from './random.js';
import { DAY, formatDateTime, SimTime } from './sim-time.js';

/** The one pipeline the demo account may read capacity of. */
export const DEMO_CAPACITY_SLUG = 'texas-eastern';
/** The demo account's notices are at least this old. */
export const DEMO_NOTICE_AGE_DAYS = 30;
/** The demo account's page size. */
export const DEMO_PER_PAGE = 5;
/** The demo account's last page; later pages are empty. */
export const DEMO_MAX_PAGES = 3;

/** Everything one simulator instance holds. */
export class SimulatorCore {
  readonly time: SimTime;
  readonly catalog = new Catalog();
  readonly store: NoticeStore;
  readonly generator: NoticeGenerator;
  readonly capacity: CapacityBook;
  readonly faults = new FaultQueue();
  /** The only gas day the demo account may read capacity of. */
  readonly demoGasDay: string;
  /** The demo account sees notices posted before this datetime text. */
  readonly demoNoticeCutoff: string;
  /** The text in `messages` of every private response to the demo account. */
  readonly demoMessage: string;

  constructor(readonly opts: SimulatorOptions) {
    const start = opts.startAt;
    this.time = new SimTime(opts.clock, start, opts.speed);
    const firstId = 200_000 + Random.of(opts.seed, 'first-id').int(0, 99_999);
    this.store = new NoticeStore(firstId);
    this.generator = new NoticeGenerator(this.store, opts);
    this.generator.generateHistory();
    this.capacity = new CapacityBook(opts.seed, start, opts.swing);
    this.demoGasDay = addDays(start.toISOString().slice(0, 10), -45);
    this.demoNoticeCutoff = formatDateTime(start.getTime() - DEMO_NOTICE_AGE_DAYS * DAY);
    this.demoMessage =
      `Demo account: notices are limited to old data (posted before ${this.demoNoticeCutoff}` +
      ` UTC), ${DEMO_PER_PAGE} results per page and up to ${DEMO_MAX_PAGES} pages; capacity is` +
      ` limited to ${DEMO_CAPACITY_SLUG} for gas day ${this.demoGasDay}.`;
  }

  /** Brings live data up to simulated now and returns now (ms). */
  sync(): number {
    const now = this.time.nowMs();
    if (this.opts.live) this.generator.advanceTo(now);
    return now;
  }

  /** The instant up to which scheduled capacity cycles are posted. */
  horizon(): number {
    return this.opts.live ? this.time.nowMs() : this.opts.startAt.getTime();
  }

  /** The account with these credentials, if any. */
  user(username: string, key: string): SimulatorUser | undefined {
    return this.opts.users.find((u) => u.username === username && u.key === key);
  }
}
