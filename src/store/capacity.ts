/** Capacity cycles and their locations; every cycle is kept, for history. */
import type { Db } from './database.js';

/** Reads and writes `capacity_cycles` and `capacity_locations`. */
export class CapacityStore {
  constructor(private readonly db: Db) {}

  /** Number of stored cycles. */
  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM capacity_cycles').get() as { n: number }).n;
  }
}
