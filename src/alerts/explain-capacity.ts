/**
 * Each capacity rule's verdict on the latest stored cycles, as the daemon would act on
 * them, without writing anything: for `pipewatch rules test`. A location below the
 * threshold whose episode is already open was alerted (the outbox says how it went); one
 * with no open episode fires when the daemon next judges a cycle of it that is still low,
 * since a stored cycle is judged once, when it arrives or changes. As the daemon does,
 * the locations of one rule that fire in one cycle make one alert.
 */

import { targetLabel } from '../domain/targets.js';
import { formatDuration } from '../lib/duration.js';
import { grouped } from '../lib/quantity.js';
import type { AsyncStore } from '../store/async-store.js';
import type { StoredCycle } from '../store/capacity.js';
import type { CapacityAlertState } from '../store/capacity-alerts.js';
import type { CapacityLocation } from '../upstream/schemas.js';
import { capacitySubject, measure } from './capacity-decisions.js';
import { deliveryView, describeDelivery, type PlannedAlert, type Verdict } from './explain.js';
import type { OutboxRow } from './outbox.js';
import type { AlertPayload } from './payload.js';
import type { CompiledCapacityRule, CompiledRules } from './rules.js';

/** A capacity verdict on one location of one cycle. */
export interface CapacityVerdict extends Verdict {
  pipeline: string;
  location: string;
  identifier: string;
  cycle: string;
  gas_day: string;
  /** The value the rule compares: OAC in Dth, or percent of OPC. */
  value: number;
}

/** One capacity rule over the latest stored cycles of its pipelines. */
export interface CapacityJudgement {
  rule: string;
  /** `below 50,000 Dth`, `below 10% of OPC`. */
  threshold: string;
  /** The cycles judged: the latest stored one of each pipeline among the rule's cycles. */
  cycles: Array<{ pipeline: string; cycle: string; gas_day: string }>;
  /** Locations the rule looks at, in those cycles. */
  locations: number;
  /** Locations below the threshold, or in an open episode. */
  verdicts: CapacityVerdict[];
  /** What fires at the next cycle judged: one alert per pipeline, its locations together. */
  alerts: PlannedAlert[];
}

/** A location's verdict, with what grouping its alert needs. */
interface Judged {
  verdict: CapacityVerdict;
  /** The location's key in the state table: its identifier, else its name. */
  key: string;
  episode: number;
  entry: CapacityLocation;
}

/** The latest stored cycle of `slug` that the rule judges. */
async function latestCycle(
  store: AsyncStore,
  c: CompiledCapacityRule,
  slug: string,
): Promise<StoredCycle | undefined> {
  return (await store.capacity.cycles(slug)).find((cycle) => c.cycle(cycle.cycle));
}

/** How every capacity rule treats the latest stored cycles, at `now`. */
export async function explainCapacity(
  rules: CompiledRules,
  store: AsyncStore,
  now: Date,
): Promise<CapacityJudgement[]> {
  const out: CapacityJudgement[] = [];
  for (const c of rules.capacity) {
    const r = c.rule;
    const unit = r.unit === 'percent' ? '% of OPC' : ' Dth';
    const judgement: CapacityJudgement = {
      rule: r.name,
      threshold: `below ${grouped(r.below)}${unit}`,
      cycles: [],
      locations: 0,
      verdicts: [],
      alerts: [],
    };
    out.push(judgement);
    for (const p of await store.pipelines.all()) {
      if (!c.pipeline(p.slug)) continue;
      const cycle = await latestCycle(store, c, p.slug);
      if (!cycle) continue;
      judgement.cycles.push({ pipeline: p.slug, cycle: cycle.cycle, gas_day: cycle.gas_day });
      const outbox = (await store.outbox.forSubject(`capacity:${p.slug}:`)).filter(
        (d) => d.rule === r.name && d.payload.kind === 'capacity',
      );
      const firing: Judged[] = [];
      for (const l of await store.capacity.locations(cycle.id)) {
        if (!c.location(l.location, l.identifier) || !c.flow(l.flow)) continue;
        const value = measure(l, r.unit);
        if (value === null) continue;
        judgement.locations++;
        const key = l.identifier || l.location;
        const row = await store.capacityAlerts.get(r.name, p.slug, key);
        const judged = judge(c, outbox, cycle, l, value, row, now);
        if (!judged) continue;
        judgement.verdicts.push(judged.verdict);
        if (judged.verdict.fires) firing.push(judged);
      }
      if (firing.length > 0) judgement.alerts.push(await groupAlert(c, store, cycle, firing, now));
    }
  }
  return out;
}

/** The one alert the locations that fire in a cycle make, as the daemon groups them. */
async function groupAlert(
  c: CompiledCapacityRule,
  store: AsyncStore,
  cycle: StoredCycle,
  firing: readonly Judged[],
  now: Date,
): Promise<PlannedAlert> {
  const r = c.rule;
  const sorted = [...firing].sort((a, b) => a.verdict.value - b.verdict.value);
  const event = {
    kind: 'capacity' as const,
    change: 'updated' as const,
    cycle: { ...cycle, pipeline_url: '' },
    locations: [],
    version: cycle.version,
    seenAt: `${now.toISOString().slice(0, 19)}Z`,
  };
  const refs = sorted.map((v) => `${v.key}#${v.episode}`);
  const payload: AlertPayload = {
    version: 1,
    kind: 'capacity',
    state: 'firing',
    rule: r.name,
    pipeline: { slug: cycle.pipeline_slug, name: cycle.pipeline_name || cycle.pipeline_slug },
    zone: await store.pipelines.zoneOf(cycle.pipeline_slug),
    capacity: {
      cycle: cycle.cycle,
      gas_day: cycle.gas_day,
      locations: sorted.map((v) => ({
        ...v.entry,
        threshold: r.below,
        clear_above: r.clearAbove,
        unit: r.unit,
      })),
    },
  };
  return { subject: capacitySubject(event, 'firing', refs), payload };
}

function shown(value: number, unit: 'absolute' | 'percent'): string {
  return unit === 'percent' ? `${value.toFixed(1)}% of OPC` : grouped(Math.round(value));
}

function judge(
  c: CompiledCapacityRule,
  outbox: readonly OutboxRow[],
  cycle: StoredCycle,
  l: CapacityLocation,
  value: number,
  row: CapacityAlertState | undefined,
  now: Date,
): Judged | undefined {
  const r = c.rule;
  const key = l.identifier || l.location;
  const where = `${cycle.cycle} cycle, gas day ${cycle.gas_day}`;
  const base = {
    rule: r.name,
    kind: 'capacity' as const,
    targets: [] as string[],
    reminders: [],
    pipeline: cycle.pipeline_slug,
    location: l.location,
    identifier: l.identifier,
    cycle: cycle.cycle,
    gas_day: cycle.gas_day,
    value,
  };
  const oac = `OAC ${shown(value, r.unit)}`;
  if (row?.state === 'firing') {
    const deliveries = outbox
      .filter(
        (d) =>
          d.payload.state === 'firing' &&
          d.created_at >= row.since &&
          (d.payload.capacity?.locations ?? []).some((x) => (x.identifier || x.location) === key),
      )
      .map(deliveryView);
    const sent =
      deliveries.length > 0 ? deliveries.map(describeDelivery).join('; ') : 'no delivery recorded';
    let repeat = '';
    if (r.repeatEveryMs !== undefined && row.last_alert_at !== null) {
      const next = Date.parse(row.last_alert_at) + r.repeatEveryMs;
      repeat =
        next <= now.getTime()
          ? `; repeats (every ${formatDuration(r.repeatEveryMs)}) with the next cycle judged`
          : `; repeats with the first cycle judged after ${new Date(next).toISOString().slice(0, 19)}Z`;
    }
    const reason = `already alerted: ${oac} (${where}); firing since ${row.since} (episode ${row.episode}) → ${sent}${repeat}`;
    return {
      key,
      episode: row.episode,
      entry: l,
      verdict: { ...base, outcome: 'alerted', fires: false, reason, deliveries },
    };
  }
  if (value >= r.below) return undefined;
  const reason = `${oac} below ${grouped(r.below)} (${where}) with no episode open: fires when the daemon next judges a cycle of this location that is still below`;
  return {
    key,
    episode: (row?.episode ?? 0) + 1,
    entry: l,
    verdict: {
      ...base,
      outcome: 'next-cycle',
      fires: true,
      targets: r.notify.map(targetLabel),
      reason,
      deliveries: [],
    },
  };
}
