/**
 * Operationally available capacity, computed on demand as a pure function of the seed,
 * pipeline, gas day and cycle, plus what control requests publish. Nothing is stored per
 * cycle, so any gas day in range costs the same.
 */
import {
  addDays,
  type Cycle,
  cyclePostedAt,
  gasDayOf,
  NOMINATION_CYCLES,
} from '../domain/gas-day.js';
import { type LocationSeed, locationsOf } from './capacity-locations.js';
import type { QuantityStyle, SimPipeline } from './pipelines.js';
import { Random } from './random.js';
import { DAY, formatDateTime } from './sim-time.js';
import type {
  CycleQuery,
  LocationOverride,
  Quantity,
  WireCapacity,
  WireLocation,
} from './types.js';

/** How many gas days before the start capacity is kept. */
export const CAPACITY_HISTORY_DAYS = 90;

const CYCLE_IDENTIFIERS: Record<string, readonly string[]> = {
  naesb: ['TIM', 'EVE', 'ID1', 'ID2', 'ID3'],
  upper: ['TIMELY', 'EVENING', 'ID1', 'ID2', 'ID3'],
  abbrev: ['T', 'E', 'I1', 'I2', 'I3'],
  mixed: ['1', '2', '3', '4', '5'],
};

/** OAC targets of the swinging location, visited cycle after cycle. */
const SWING = [30_000, 55_000, 78_000, 40_000, 70_000, 25_000, 60_000];
/** OAC of the swinging location when it holds steady: far above any threshold near 50,000. */
const STEADY_OAC = 150_000;

/** Normalised location override: quantities as numbers. */
type Override = Omit<LocationOverride, 'dc' | 'opc' | 'tsq' | 'oac'> & {
  dc?: number;
  opc?: number;
  tsq?: number;
  oac?: number;
};

interface Published {
  at: number;
  /** Published ahead of its posting time: available only once that time comes. */
  onSchedule: boolean;
  locations: Map<string, { fields: Override; at: number }>;
}

/** A resolved request: which gas day and cycle to serve. */
export interface CycleRef {
  gasDay: string;
  cycle: Cycle;
}

/** Capacity of all pipelines of one simulator. */
export class CapacityBook {
  private readonly published = new Map<string, Published>();
  private readonly firstGasDay: string;

  constructor(
    private readonly seed: number,
    startAt: Date,
    /** Whether the swinging location swings (`SimulatorOptions.swing`), or holds steady. */
    private readonly swing = true,
  ) {
    this.firstGasDay = addDays(gasDayOf(startAt), -CAPACITY_HISTORY_DAYS);
  }

  /** When a cycle became available, or null if it is not available at `horizon`. */
  postedAt(slug: string, ref: CycleRef, horizon: number): number | null {
    const scheduled = cyclePostedAt(ref.gasDay, ref.cycle).getTime();
    const pub = this.published.get(key(slug, ref));
    if (pub && !(pub.onSchedule && scheduled > horizon)) return Math.min(scheduled, pub.at);
    if (pub) return null;
    return scheduled <= horizon && ref.gasDay >= this.firstGasDay ? scheduled : null;
  }

  /** The gas day and cycle a query means, or null when no such data is posted. */
  resolve(
    slug: string,
    query: CycleQuery,
    gasDay: string | undefined,
    horizon: number,
  ): CycleRef | null {
    const ok = (ref: CycleRef) => this.postedAt(slug, ref, horizon) !== null;
    if (gasDay !== undefined) {
      const cycles = query === 'latest' ? [...NOMINATION_CYCLES].reverse() : [query];
      return cycles.map((cycle) => ({ gasDay, cycle })).find(ok) ?? null;
    }
    const days = new Set(this.publishedDays(slug));
    const today = gasDayOf(new Date(horizon));
    for (let day = addDays(today, 1); day >= this.firstGasDay; day = addDays(day, -1)) {
      days.add(day);
    }
    const newestFirst = [...days].sort().reverse();
    if (query === 'latest') return this.latestPosted(slug, newestFirst, horizon);
    for (const day of newestFirst) {
      if (ok({ gasDay: day, cycle: query })) return { gasDay: day, cycle: query };
    }
    return null;
  }

  /**
   * The cycle posted last, of any gas day: until today's ID1 posts, that is yesterday's
   * ID3, not the evening cycle of today posted an hour before it. `days` newest first.
   */
  private latestPosted(slug: string, days: readonly string[], horizon: number): CycleRef | null {
    let best: CycleRef | null = null;
    let bestAt = Number.NEGATIVE_INFINITY;
    for (const gasDay of days) {
      // A gas day's cycles are all posted by its ID3; older days' even earlier.
      if (cyclePostedAt(gasDay, 'id3').getTime() < bestAt) break;
      for (const cycle of NOMINATION_CYCLES) {
        const ref = { gasDay, cycle };
        const scheduled = cyclePostedAt(gasDay, cycle).getTime();
        if (scheduled > bestAt && this.postedAt(slug, ref, horizon) !== null) {
          best = ref;
          bestAt = scheduled;
        }
      }
    }
    return best;
  }

  /** The capacity result of a cycle for a pipeline. */
  result(pipeline: SimPipeline, ref: CycleRef, horizon: number): WireCapacity {
    const slug = pipeline.slug;
    const postedAt =
      this.postedAt(slug, ref, horizon) ?? cyclePostedAt(ref.gasDay, ref.cycle).getTime();
    const pub = this.published.get(key(slug, ref));
    const style = pipeline.capacity?.quantities ?? 'number';
    const cycleIndex = NOMINATION_CYCLES.indexOf(ref.cycle);
    const dayNumber = Math.round(Date.parse(ref.gasDay) / DAY);
    const cycleId = ((dayNumber - 19_000) * 64 + pipeline.id) * 8 + cycleIndex + 1;
    const created = formatDateTime(postedAt);
    const seeds = locationsOf(this.seed, slug);
    const extra = [...(pub?.locations.keys() ?? [])].filter(
      (id) => !seeds.some((s) => s.identifier === id),
    );
    const locations: WireLocation[] = [...seeds.map((s) => s.identifier), ...extra].map((id, i) => {
      const s = seeds.find((x) => x.identifier === id);
      const base = s ? this.generated(slug, s, ref) : blank(id);
      const over = pub?.locations.get(id);
      const q = over ? applyOverride(base, over.fields) : base;
      return {
        id: cycleId * 100 + i + 1,
        location: q.location,
        identifier: id,
        flow: q.flow,
        qti: q.qti,
        zone: q.zone,
        dc: quantity(q.dc, style),
        opc: quantity(q.opc, style),
        tsq: quantity(q.tsq, style),
        oac: quantity(q.oac, style),
        it: q.it,
        all: q.all,
        reason: q.reason,
        service_created_at: created,
        service_updated_at: over ? formatDateTime(Math.max(over.at, postedAt)) : created,
      };
    });
    const identifiers = CYCLE_IDENTIFIERS[pipeline.noticeStyle] ?? CYCLE_IDENTIFIERS.naesb;
    return {
      cycle: {
        id: cycleId,
        pipeline_id: pipeline.id,
        pipeline_name: pipeline.name,
        pipeline_slug: slug,
        pipeline_url: pipeline.url,
        identifier: identifiers[cycleIndex],
        cycle: ref.cycle,
        gas_day: ref.gasDay,
        service_created_at: created,
        service_updated_at: pub ? formatDateTime(Math.max(pub.at, postedAt)) : created,
      },
      locations,
    };
  }

  /**
   * Publishes a cycle now, with location values that override the generated ones; with
   * `onSchedule`, a cycle not posted yet keeps its posting time and carries the values
   * when it posts.
   */
  publish(
    slug: string,
    ref: CycleRef,
    now: number,
    overrides: Override[],
    onSchedule = false,
  ): void {
    const k = key(slug, ref);
    const scheduled = cyclePostedAt(ref.gasDay, ref.cycle).getTime();
    const ahead = onSchedule && scheduled > now;
    const at = ahead ? scheduled : now;
    const pub = this.published.get(k) ?? { at, onSchedule: ahead, locations: new Map() };
    if (!ahead) pub.onSchedule = false;
    pub.at = Math.min(pub.at, at);
    for (const o of overrides) {
      const prev = pub.locations.get(o.identifier)?.fields ?? {};
      pub.locations.set(o.identifier, { fields: { ...prev, ...o }, at: now });
    }
    this.published.set(k, pub);
  }

  private publishedDays(slug: string): string[] {
    return [...this.published.keys()]
      .filter((k) => k.startsWith(`${slug}|`))
      .map((k) => k.split('|')[1]);
  }

  private generated(slug: string, s: LocationSeed, ref: CycleRef): Required<Override> {
    const rng = Random.of(this.seed, 'capacity', slug, s.identifier, ref.gasDay);
    const cycleIndex = NOMINATION_CYCLES.indexOf(ref.cycle);
    const reduced = rng.chance(0.04);
    const reducedRatio = rng.float(0.5, 0.85);
    const utilization = rng.float(0.35, 0.98);
    const drifts = NOMINATION_CYCLES.map((_, i) => (i === 0 ? 0 : rng.float(-0.08, 0.08)));
    const full = rng.chance(0.06);
    const jitter = rng.int(-2_000, 2_000);
    const opc = Math.round(s.dc * (reduced ? reducedRatio : s.opcRatio));
    let tsq: number;
    if (s.swing && !this.swing) {
      tsq = opc - (STEADY_OAC + jitter);
    } else if (s.swing) {
      const step = Math.round(Date.parse(ref.gasDay) / DAY) * NOMINATION_CYCLES.length + cycleIndex;
      tsq = opc - (SWING[step % SWING.length] + jitter);
    } else {
      const drift = drifts.slice(0, cycleIndex + 1).reduce((a, b) => a + b, 0);
      const u = full && cycleIndex >= 2 ? 1 : Math.min(1, Math.max(0, utilization + drift));
      tsq = Math.round(opc * u);
    }
    const oac = Math.max(0, opc - tsq);
    const reason = reduced
      ? 'Operating capacity reduced for compressor maintenance'
      : oac === 0
        ? 'Capacity fully scheduled'
        : '';
    return {
      identifier: s.identifier,
      location: s.location,
      flow: s.flow,
      qti: s.qti,
      zone: s.zone,
      dc: s.dc,
      opc,
      tsq,
      oac,
      it: s.it,
      all: s.all ?? (oac > 0 && !reduced ? 'Y' : 'N'),
      reason,
    };
  }
}

function key(slug: string, ref: CycleRef): string {
  return `${slug}|${ref.gasDay}|${ref.cycle}`;
}

function blank(identifier: string): Required<Override> {
  return {
    identifier,
    location: identifier,
    flow: 'D',
    qti: 'DPQ',
    zone: '',
    dc: 0,
    opc: 0,
    tsq: 0,
    oac: 0,
    it: 'N',
    all: 'N',
    reason: '',
  };
}

/** Applies control values; OAC and TSQ follow each other when only one of them is given. */
function applyOverride(base: Required<Override>, o: Override): Required<Override> {
  const merged = { ...base, ...o };
  if (o.oac === undefined) merged.oac = Math.max(0, merged.opc - merged.tsq);
  else if (o.tsq === undefined) merged.tsq = Math.max(0, merged.opc - merged.oac);
  return merged;
}

function quantity(n: number, style: QuantityStyle): Quantity {
  if (style === 'number') return n;
  return style === 'grouped' ? n.toLocaleString('en-US') : String(n);
}
