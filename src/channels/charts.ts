/**
 * The OAC charts a capacity alert carries, drawn when the alert is sent, from the
 * history in the store. Send time rather than decision time: drawing takes some 100 ms,
 * which the ingest transaction that decides an alert must not spend, and a picture in
 * the outbox would swell every row. The chart ends with the alert's gas day, so a resend
 * shows what the first attempt showed, whatever has been posted since.
 *
 * A chart is extra: `chartsFor` never throws. A chart that cannot be drawn (no history
 * left, no font, anything else) is logged as a warning and the alert goes without it.
 */
import type { AlertPayload } from '../alerts/payload.js';
import { drawOacChart } from '../chart/oac-chart.js';
import { addDays } from '../domain/gas-day.js';
import { errorMessage } from '../lib/error-text.js';
import type { Logger } from '../lib/logger.js';
import { quantity } from '../lib/quantity.js';
import type { OacRow } from '../store/capacity.js';
import { type CapacityEntry, locationLabel } from './capacity.js';
import { clip } from './text.js';
import type { ChartImage, ChartSource } from './types.js';

export type { ChartImage, ChartSource } from './types.js';

/** The stored history a source reads: `CapacityStore.oacHistory`, on either store. */
export type OacHistory = (
  pipeline: string,
  location: string,
  from: string,
  to: string,
  limit: number,
) => OacRow[] | Promise<OacRow[]>;

/** Gas days an alert's chart covers. */
export const CHART_DAYS = 7;
/** Most charts one message carries: the first locations of its table. */
export const MAX_CHARTS = 3;
/** Most cycles read for one chart: five a day for a year, before the chart thins them. */
export const MAX_ROWS = 1_830;

/**
 * Charts of a capacity alert's first `MAX_CHARTS` locations over the `days` gas days
 * to its own, from `history` (undefined while the store is not open yet: no charts).
 */
export function storedCharts(
  history: () => OacHistory | undefined,
  days = CHART_DAYS,
): ChartSource {
  return async (p) => {
    const read = history();
    const c = p.capacity;
    if (!read || p.kind !== 'capacity' || !c) return [];
    const out: ChartImage[] = [];
    for (const l of c.locations.slice(0, MAX_CHARTS)) {
      const key = l.identifier || l.location;
      const rows = await read(
        p.pipeline.slug,
        key,
        addDays(c.gas_day, 1 - days),
        c.gas_day,
        MAX_ROWS,
      );
      const points = locationPoints(rows, l.unit);
      const png = await drawOacChart({
        points,
        threshold: l.threshold,
        clear: l.clear_above,
        unit: l.unit,
        title: `OAC at ${locationLabel(l)}, ${p.pipeline.name}, last ${days} gas days`,
      });
      out.push({
        name: fileName(p.pipeline.slug, key),
        png,
        alt: altText(l, points, days),
        pipeline: p.pipeline.slug,
        location: key,
      });
    }
    return out;
  };
}

/** The values a rule of `unit` compares, one a cycle, the cycles without one left out. */
export function locationPoints(
  rows: readonly OacRow[],
  unit: 'absolute' | 'percent',
): Array<{ gasDay: string; cycle: string; value: number }> {
  const out: Array<{ gasDay: string; cycle: string; value: number }> = [];
  for (const r of rows) {
    // As the rule compares it (`measure` in alerts/capacity-decisions.ts).
    const value =
      r.oac === null
        ? null
        : unit === 'absolute'
          ? r.oac
          : r.opc !== null && r.opc > 0
            ? (r.oac / r.opc) * 100
            : null;
    if (value !== null) out.push({ gasDay: r.gas_day, cycle: r.cycle, value });
  }
  return out;
}

/**
 * The charts of the alerts of one message, at most `MAX_CHARTS` in all; none when there
 * is no source. Never throws: a chart that fails is a warning, and the rest still go.
 */
export async function chartsFor(
  payloads: readonly AlertPayload[],
  source: ChartSource | undefined,
  log: Logger,
): Promise<ChartImage[]> {
  if (!source) return [];
  const out: ChartImage[] = [];
  for (const p of payloads) {
    if (p.kind !== 'capacity' || out.length >= MAX_CHARTS) continue;
    try {
      out.push(...(await source(p)));
    } catch (err) {
      const reason = errorMessage(err);
      log.warn(
        { rule: p.rule, pipeline: p.pipeline.slug, reason },
        `chart: the alert goes without its OAC chart: ${reason}`,
      );
    }
  }
  return out.slice(0, MAX_CHARTS);
}

/** The charts of one alert of a message. */
export function chartsOf(charts: readonly ChartImage[], p: AlertPayload): ChartImage[] {
  const keys = new Set((p.capacity?.locations ?? []).map((l) => l.identifier || l.location));
  return charts.filter((c) => c.pipeline === p.pipeline.slug && keys.has(c.location));
}

/** `oac-transco-1001234.png`: lower case letters, digits and dashes only. */
function fileName(pipeline: string, location: string): string {
  const safe = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'x';
  return `oac-${safe(pipeline)}-${safe(location)}.png`;
}

/**
 * `OAC at STATION 85 (1001234) over the last 7 gas days: 35 cycles, from 41,000 to
 * 140,000, last 48,000; threshold 50,000, clear above 60,000 (Dth).`
 */
function altText(l: CapacityEntry, points: ReadonlyArray<{ value: number }>, days: number): string {
  const unit = l.unit === 'percent' ? '% of OPC' : 'Dth';
  const shown = (v: number) => (l.unit === 'percent' ? v.toFixed(1) : quantity(Math.round(v)));
  const values = points.map((p) => p.value);
  const last = values[values.length - 1];
  const range =
    values.length === 0
      ? 'no stored cycles'
      : `${values.length} cycle${values.length === 1 ? '' : 's'}, from ${shown(Math.min(...values))} to ${shown(Math.max(...values))}, last ${shown(last ?? 0)}`;
  return clip(
    `OAC at ${locationLabel(l)} over the last ${days} gas days: ${range}; threshold ${shown(l.threshold)}, clear above ${shown(l.clear_above)} (${unit}).`,
    300,
  );
}
