/**
 * Decisions on capacity cycles. The state is kept per (rule, pipeline, location): OAC
 * below the threshold fires once per episode; back above the recovery level resolves it;
 * in between nothing is sent, so a value wavering around the threshold does not flap.
 * With `repeat_every` a firing episode is repeated while it lasts. Cycles are judged in
 * the order they are posted (`cycleOrderKey`): tomorrow's timely and evening cycles come
 * before today's ID2 and ID3, and each is the freshest word on the location when it
 * comes. A cycle posted before the last one judged for that location (fetched out of
 * order, after an outage) is ignored. Each location's decision is audited on its own.
 *
 * What is sent is grouped, because a person reads one message per cycle better than
 * seventeen: the locations of one rule that fired (or repeated) in one cycle event make
 * one alert, those that recovered another, each queued once per target. Its outbox
 * subject names the cycle, its version and the state, with a hash of the locations and
 * their episodes, so deciding the same cycle again can never send it twice.
 */
import { createHash } from 'node:crypto';
import { cycleOrderKey } from '../domain/gas-day.js';
import type { CapacityEvent } from '../ingest/events.js';
import { formatDuration } from '../lib/duration.js';
import { grouped } from '../lib/quantity.js';
import type { CapacityAlertChange } from '../store/capacity-alerts.js';
import type { CapacityLocation } from '../upstream/schemas.js';
import { type DecisionContext, enqueueAll } from './context.js';
import type { AlertPayload } from './payload.js';
import type { CompiledRules } from './rules.js';

type Entry = NonNullable<AlertPayload['capacity']>['locations'][number];

/** One location that changed state (or repeated) in this cycle. */
interface Transition {
  state: 'firing' | 'resolved';
  entry: Entry;
  value: number;
  /** `location#episode`, with the repeat count for a repeat: what the subject hashes. */
  ref: string;
}

/** The value a rule compares: OAC, or OAC as a percentage of OPC (null when OPC is 0 or unknown). */
export function measure(location: CapacityLocation, unit: 'absolute' | 'percent'): number | null {
  if (location.oac === null) return null;
  if (unit === 'absolute') return location.oac;
  if (location.opc === null || location.opc <= 0) return null;
  return (location.oac / location.opc) * 100;
}

/**
 * The outbox subject of one grouped alert:
 * `capacity:transco:2026-11-23:timely:v1:firing:3f2a9c01b7e4`. The hash covers the sorted
 * location and episode list, so another set of locations from the same cycle is another
 * alert, and the same set is the same alert however often it is decided.
 */
export function capacitySubject(
  e: CapacityEvent,
  state: 'firing' | 'resolved',
  refs: readonly string[],
): string {
  const hash = createHash('sha256')
    .update([...refs].sort().join('\n'))
    .digest('hex')
    .slice(0, 12);
  const c = e.cycle;
  return `capacity:${c.pipeline_slug}:${c.gas_day}:${c.cycle}:v${e.version}:${state}:${hash}`;
}

/** Decides one capacity event. Call inside the transaction that stored the cycle. */
export async function decideCapacity(
  ctx: DecisionContext,
  rules: CompiledRules,
  e: CapacityEvent,
): Promise<number> {
  const { cycle } = e;
  const pipeline = { slug: cycle.pipeline_slug, name: cycle.pipeline_name || cycle.pipeline_slug };
  const zone = await ctx.store.pipelines.zoneOf(cycle.pipeline_slug);
  let alerts = 0;
  for (const c of rules.capacity) {
    const r = c.rule;
    if (!c.pipeline(cycle.pipeline_slug) || !c.cycle(cycle.cycle)) continue;
    const transitions: Transition[] = [];
    for (const l of e.locations) {
      if (!c.location(l.location, l.identifier) || !c.flow(l.flow)) continue;
      const t = await judge(ctx, c.rule, e, l);
      if (t) transitions.push(t);
    }
    for (const state of ['firing', 'resolved'] as const) {
      const group = transitions.filter((t) => t.state === state).sort(byReading);
      if (group.length === 0) continue;
      const subject = capacitySubject(
        e,
        state,
        group.map((t) => t.ref),
      );
      const outcome = await enqueueAll(ctx, r.name, subject, r.notify, {
        version: 1,
        kind: 'capacity',
        state,
        rule: r.name,
        pipeline,
        zone,
        capacity: {
          cycle: cycle.cycle,
          gas_day: cycle.gas_day,
          locations: group.map((t) => t.entry),
        },
      });
      alerts += outcome.sent.length;
      if (outcome.muted.length > 0)
        await ctx.store.audit.record({
          at: ctx.now,
          rule: r.name,
          event: 'capacity',
          subject,
          notice_id: null,
          decision: 'muted',
          reason: outcome.muted.join('; '),
        });
    }
  }
  return alerts;
}

/** New breaches first, then repeats, each from the lowest value up; recoveries by name. */
function byReading(a: Transition, b: Transition): number {
  if (a.state === 'firing') {
    const repeat = Number(a.entry.repeat === true) - Number(b.entry.repeat === true);
    if (repeat !== 0) return repeat;
    if (a.value !== b.value) return a.value - b.value;
  }
  return a.entry.location.localeCompare(b.entry.location) || a.ref.localeCompare(b.ref);
}

type Rule = CompiledRules['capacity'][number]['rule'];

/**
 * One location's decision: moves its state, writes its audit row, and says what it
 * contributes to the cycle's alerts (nothing when it stays where it was).
 */
async function judge(
  ctx: DecisionContext,
  r: Rule,
  e: CapacityEvent,
  l: CapacityLocation,
): Promise<Transition | undefined> {
  const { cycle } = e;
  const cycleKey = cycleOrderKey(cycle.gas_day, cycle.cycle);
  const value = measure(l, r.unit);
  if (value === null) return undefined;
  const location = l.identifier || l.location;
  const slug = cycle.pipeline_slug;
  const row = await ctx.store.capacityAlerts.get(r.name, slug, location);
  if (row && cycleKey < row.last_cycle) return undefined;
  const state = row?.state ?? 'ok';
  let next: CapacityAlertChange = row ?? {
    state: 'ok',
    episode: 0,
    last_alert_at: null,
    repeats: 0,
    last_cycle: cycleKey,
  };
  let alert:
    | { state: 'firing' | 'resolved'; ref: string; reason: string; repeat?: true }
    | undefined;
  const shown =
    r.unit === 'percent' ? `${value.toFixed(1)}% of OPC` : `${grouped(Math.round(value))}`;
  if (state === 'ok' && value < r.below) {
    next = {
      state: 'firing',
      episode: next.episode + 1,
      last_alert_at: ctx.now,
      repeats: 0,
      last_cycle: cycleKey,
    };
    alert = {
      state: 'firing',
      ref: `${location}#${next.episode}`,
      reason: `OAC ${shown} below ${r.below}`,
    };
  } else if (state === 'firing' && value > r.clearAbove) {
    next = { ...next, state: 'ok', last_alert_at: ctx.now, last_cycle: cycleKey };
    alert = {
      state: 'resolved',
      ref: `${location}#${next.episode}`,
      reason: `OAC ${shown} back above ${r.clearAbove}`,
    };
  } else if (
    state === 'firing' &&
    r.repeatEveryMs !== undefined &&
    next.last_alert_at !== null &&
    Date.parse(ctx.now) - Date.parse(next.last_alert_at) >= r.repeatEveryMs
  ) {
    next = { ...next, repeats: next.repeats + 1, last_alert_at: ctx.now, last_cycle: cycleKey };
    alert = {
      state: 'firing',
      ref: `${location}#${next.episode}#repeat-${next.repeats}`,
      reason: `OAC ${shown} still below ${r.below} (repeat every ${formatDuration(r.repeatEveryMs)})`,
      repeat: true,
    };
  } else {
    next = { ...next, last_cycle: cycleKey };
  }
  await ctx.store.capacityAlerts.put(r.name, slug, location, next, value, ctx.now);
  if (!alert) return undefined;
  await ctx.store.audit.record({
    at: ctx.now,
    rule: r.name,
    event: 'capacity',
    subject: `capacity:${slug}:${location}`,
    notice_id: null,
    decision: alert.state,
    reason: `${alert.reason} (${cycle.cycle} cycle, gas day ${cycle.gas_day})`,
  });
  const entry: Entry = {
    ...l,
    threshold: r.below,
    clear_above: r.clearAbove,
    unit: r.unit,
    ...(alert.repeat ? { repeat: true as const } : {}),
  };
  return { state: alert.state, entry, value, ref: alert.ref };
}
