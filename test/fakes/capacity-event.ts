/**
 * A capacity event as the capacity sync hands it to the rules: one Transco cycle with
 * the given locations, for tests of capacity decisions.
 */
import type { CapacityEvent } from '../../src/ingest/events.js';
import type { CapacityLocation } from '../../src/upstream/schemas.js';

let cycleId = 0;

/** A Transco `cycle` of `gasDay` holding `locations`, new at version 1, updated after. */
export function transcoCycle(options: {
  cycle: string;
  gasDay: string;
  locations: CapacityLocation[];
  seenAt: string;
  version?: number;
}): CapacityEvent {
  const version = options.version ?? 1;
  return {
    kind: 'capacity',
    change: version === 1 ? 'new' : 'updated',
    cycle: {
      id: ++cycleId,
      pipeline_id: 3,
      pipeline_name: 'Transco',
      pipeline_slug: 'transco',
      pipeline_url: '',
      identifier: 'x',
      cycle: options.cycle,
      gas_day: options.gasDay,
      service_created_at: null,
      service_updated_at: null,
    },
    locations: options.locations,
    version,
    seenAt: options.seenAt,
  };
}
