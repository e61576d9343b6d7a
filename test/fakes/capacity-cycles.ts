/**
 * Capacity cycles and locations of Texas Eastern as the API posts them, for the capacity
 * store's tests on either database: a cycle per gas day and cycle name, each with an id
 * of its own, and two locations, one with its OAC and one fully scheduled without.
 */
import type { CapacityCycleInfo, CapacityLocation } from '../../src/upstream/schemas.js';

export const CYCLE_INDEX = { timely: 1, evening: 2, id1: 3, id2: 4, id3: 5 } as const;

/** The cycle `name` of `gasDay`, its id the same for the same day and name. */
export function cycle(
  gasDay: string,
  name: keyof typeof CYCLE_INDEX,
  overrides: Partial<CapacityCycleInfo> = {},
): CapacityCycleInfo {
  const slug = overrides.pipeline_slug ?? 'texas-eastern';
  const day = Number(gasDay.replaceAll('-', '')) % 1_000_000;
  return {
    id: day * 10 + CYCLE_INDEX[name] + (slug === 'texas-eastern' ? 0 : 5),
    pipeline_id: 4,
    pipeline_name: 'Texas Eastern Transmission',
    pipeline_slug: slug,
    pipeline_url: 'https://infopost.enbridge.com/infopost/TEHome.asp?Pipe=TE',
    identifier: name.toUpperCase(),
    cycle: name,
    gas_day: gasDay,
    service_created_at: `${gasDay}T14:00:00Z`,
    service_updated_at: `${gasDay}T14:00:00Z`,
    ...overrides,
  };
}

export const stratton: CapacityLocation = {
  id: 101,
  location: 'STRATTON RIDGE',
  identifier: '79999',
  flow: 'D',
  qti: 'DPQ',
  zone: 'STX',
  dc: 322_000,
  opc: 322_000,
  tsq: 246_706,
  oac: 75_294,
  it: 'N',
  all: 'Y',
  reason: '',
  service_created_at: '2026-11-19T23:00:00Z',
  service_updated_at: '2026-11-19T23:00:00Z',
};

export const emerson: CapacityLocation = {
  ...stratton,
  id: 102,
  location: 'EMERSON',
  identifier: '33973',
  flow: 'R',
  qti: 'RPQ',
  zone: 'M1',
  dc: 891_750,
  opc: 891_750,
  tsq: 400_199.5,
  oac: null,
  it: 'Y',
  all: 'N',
  reason: 'Capacity fully scheduled',
};
