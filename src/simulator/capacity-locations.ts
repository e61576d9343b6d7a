/**
 * The capacity locations of each pipeline: 8 to 30 points with plausible names, ids and
 * zones, derived from the seed, plus the real rows the domain notes quote and the points
 * the example rules watch.
 */
import { Random } from './random.js';

/** The constant traits of one location; quantities per gas day and cycle come from capacity.ts. */
export interface LocationSeed {
  identifier: string;
  location: string;
  zone: string;
  flow: 'R' | 'D' | 'BD';
  qti: string;
  it: 'Y' | 'N';
  dc: number;
  /** Operating capacity as a share of design capacity on a normal day. */
  opcRatio: number;
  /** The location whose OAC swings around 50,000 so low-OAC alerts fire and resolve. */
  swing?: boolean;
  /** Fixed "All Qty Avail" value, for the rows copied from real postings. */
  all?: 'Y' | 'N';
}

interface Profile {
  zones: string[];
  idDigits: number;
  titleCase?: boolean;
  fixed?: LocationSeed[];
}

const fixed = (
  identifier: string,
  location: string,
  zone: string,
  flow: 'R' | 'D',
  it: 'Y' | 'N',
  dc: number,
  extra: Partial<LocationSeed> = {},
): LocationSeed => ({
  identifier,
  location,
  zone,
  flow,
  qti: flow === 'R' ? 'RPQ' : 'DPQ',
  it,
  dc,
  opcRatio: 1,
  ...extra,
});

const PROFILES: Record<string, Profile> = {
  transco: {
    zones: ['Z1', 'Z2', 'Z3', 'Z4', 'Z4A', 'Z5', 'Z6'],
    idDigits: 7,
    fixed: [
      fixed('1000085', 'STATION 85', 'Z4', 'D', 'Y', 900_000, { opcRatio: 0.95, swing: true }),
      fixed('1001234', 'PSE&G LINDEN', 'Z6', 'D', 'Y', 600_000),
    ],
  },
  'texas-eastern': {
    zones: ['STX', 'ETX', 'WLA', 'ELA', 'M1', 'M2', 'M3'],
    idDigits: 5,
    fixed: [fixed('79999', 'STRATTON RIDGE', 'STX', 'D', 'N', 322_000, { all: 'Y' })],
  },
  tennessee: { zones: ['Z0', 'ZL', 'Z1', 'Z2', 'Z3', 'Z4', 'Z5', 'Z6'], idDigits: 6 },
  'east-tennessee': { zones: ['1', '2', '3'], idDigits: 5 },
  columbia: { zones: ['MA 20', 'MA 33', 'MA 34', 'TCO POOL'], idDigits: 6 },
  'eastern-gas': { zones: ['NORTH', 'SOUTH', 'WEST'], idDigits: 6, titleCase: true },
  equitrans: { zones: ['MAINLINE', 'GATHERING'], idDigits: 5, titleCase: true },
  algonquin: { zones: ['AG'], idDigits: 5 },
  ngpl: { zones: ['GC', 'MC', 'AM', 'IN', 'TX'], idDigits: 6 },
  'southern-natural': { zones: ['0', '1', '2', '3'], idDigits: 6 },
  anr: { zones: ['SE SOUTHERN', 'SE CENTRAL', 'SW', 'ML7', 'NORTHERN'], idDigits: 6 },
  'northern-natural': {
    zones: ['Field', 'Market'],
    idDigits: 5,
    titleCase: true,
    fixed: [fixed('33973', 'Emerson', 'Market', 'R', 'Y', 891_750)],
  },
  'texas-gas': { zones: ['SL', '1', '2', '3', '4'], idDigits: 4 },
  'gulf-south': { zones: ['Zone 1', 'Zone 2', 'Zone 3', 'Zone 4'], idDigits: 5, titleCase: true },
  iroquois: { zones: ['Zone 1', 'Zone 2'], idDigits: 5, titleCase: true },
  transwestern: { zones: ['WEST', 'EAST', 'SAN JUAN', 'CENTRAL'], idDigits: 5 },
  'florida-gas': { zones: ['1', '2', '3'], idDigits: 5 },
  panhandle: { zones: ['FIELD', 'MARKET'], idDigits: 5 },
  'el-paso': { zones: ['PERMIAN', 'SAN JUAN', 'ANADARKO', 'ARIZONA', 'CALIFORNIA'], idDigits: 6 },
  'southern-star': { zones: ['PRODUCTION', 'MARKET'], idDigits: 6, titleCase: true },
};

const PLACES = [
  'CARTHAGE',
  'KATY',
  'PERRYVILLE',
  'HENRY HUB',
  'WAHA',
  'OPAL',
  'LEIDY',
  'LEBANON',
  'BERNE',
  'HOLBROOK',
  'ROCKPORT',
  'CLARINGTON',
  'HUGOTON',
  'VENTURA',
  'DEMARCATION',
  'AGUA DULCE',
  'EUNICE',
  'MONT BELVIEU',
  'JOLIET',
  'MALIN',
  'TOPOCK',
  'EHRENBERG',
  'BLANCO',
  'WHARTON',
  'DELHI',
  'ERATH',
  'PINE PRAIRIE',
  'BETHEL',
  'STATION 165',
  'STATION 210',
  'MOBILE BAY',
  'WOODBURY',
  'HEIDELBERG',
  'GRIFFITH',
  'LOWRY',
  'BOSSIER',
  'SABINE PASS',
  'CAMERON',
  'ATMOS ENERGY',
  'CENTERPOINT',
  'SPIRE',
  'NICOR',
  'DOMINION',
  "O'HARE",
  'CHENIERE',
];

const SUFFIXES = [
  '',
  ' INTERCONNECT',
  ' CITYGATE',
  ' M&R',
  ' POOL',
  ' STORAGE',
  ' PLANT',
  ' METER',
];

function titleCase(text: string): string {
  return text
    .toLowerCase()
    .replace(/(^|[\s-])([a-z])/g, (_, pre: string, c: string) => pre + c.toUpperCase())
    .replace(/M&r/g, 'M&R');
}

const cache = new Map<string, LocationSeed[]>();

/** The locations of a pipeline with capacity data, in the order the pipeline lists them. */
export function locationsOf(seed: number, slug: string): LocationSeed[] {
  const key = `${seed}:${slug}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const profile = PROFILES[slug];
  if (!profile) throw new RangeError(`no capacity profile for ${slug}`);
  const rng = Random.of(seed, 'locations', slug);
  const out: LocationSeed[] = [...(profile.fixed ?? [])];
  const ids = new Set(out.map((l) => l.identifier));
  const names = new Set(out.map((l) => l.location));
  const count = rng.int(8, 30);
  while (out.length < count) {
    const low = 10 ** (profile.idDigits - 1);
    const identifier = String(rng.int(low, low * 10 - 1));
    const raw = `${rng.pick(PLACES)}${rng.pick(SUFFIXES)}`;
    const location = profile.titleCase ? titleCase(raw) : raw;
    if (ids.has(identifier) || names.has(location)) continue;
    ids.add(identifier);
    names.add(location);
    const flow = rng.weighted({ R: 40, D: 45, BD: 15 });
    out.push({
      identifier,
      location,
      zone: rng.pick(profile.zones),
      flow,
      qti: flow === 'R' ? 'RPQ' : flow === 'D' ? 'DPQ' : 'SPQ',
      it: rng.chance(0.7) ? 'Y' : 'N',
      dc: Math.round(Math.exp(rng.float(Math.log(10_000), Math.log(1_500_000))) / 1000) * 1000,
      opcRatio: rng.chance(0.7) ? 1 : Math.round(rng.float(0.8, 0.99) * 100) / 100,
    });
  }
  const sorted = out.sort(
    (a, b) => a.zone.localeCompare(b.zone) || a.location.localeCompare(b.location),
  );
  cache.set(key, sorted);
  return sorted;
}
