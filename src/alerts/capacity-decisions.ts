/**
 * Decisions on capacity cycles, per (rule, pipeline, location): OAC below the threshold
 * fires once per episode; back above the recovery level resolves it; in between nothing
 * is sent, so a value wavering around the threshold does not flap. With `repeat_every`
 * a firing episode is repeated while it lasts. A cycle older than the last one judged
 * for that location (fetched out of order) is ignored.
 */
import type { CapacityEvent } from '../ingest/events.js';
import { formatDuration } from '../lib/duration.js';
import type { CapacityLocation } from '../upstream/schemas.js';
import { type DecisionContext, enqueueAll } from './context.js';
import type { CompiledRules } from './rules.js';

const CYCLE_ORDER: Record<string, number> = { timely: 1, evening: 2, id1: 3, id2: 4, id3: 5 };

interface StateRow {
  state: 'ok' | 'firing';
  episode: number;
  last_alert_at: string | null;
  repeats: number;
  last_cycle: string;
}

/** The value a rule compares: OAC, or OAC as a percentage of OPC (null when OPC is 0 or unknown). */
export function measure(location: CapacityLocation, unit: 'absolute' | 'percent'): number | null {
  if (location.oac === null) return null;
  if (unit === 'absolute') return location.oac;
  if (location.opc === null || location.opc <= 0) return null;
  return (location.oac / location.opc) * 100;
}

/** Decides one capacity event. Call inside the transaction that stored the cycle. */
export function decideCapacity(
  ctx: DecisionContext,
  rules: CompiledRules,
  e: CapacityEvent,
): number {
  const { cycle } = e;
  const cycleKey = `${cycle.gas_day}#${CYCLE_ORDER[cycle.cycle] ?? 0}`;
  const pipeline = { slug: cycle.pipeline_slug, name: cycle.pipeline_name || cycle.pipeline_slug };
  const zone = ctx.store.pipelines.zoneOf(cycle.pipeline_slug);
  let alerts = 0;
  for (const c of rules.capacity) {
    const r = c.rule;
    if (!c.pipeline(cycle.pipeline_slug) || !c.cycle(cycle.cycle)) continue;
    for (const l of e.locations) {
      if (!c.location(l.location, l.identifier) || !c.flow(l.flow)) continue;
      const value = measure(l, r.unit);
      if (value === null) continue;
      const location = l.identifier || l.location;
      const key = { rule: r.name, slug: cycle.pipeline_slug, location };
      const row = ctx.store.db
        .prepare<[string, string, string], StateRow>(
          'SELECT state, episode, last_alert_at, repeats, last_cycle FROM capacity_state WHERE rule = ? AND pipeline_slug = ? AND location = ?',
        )
        .get(r.name, key.slug, location);
      if (row && cycleKey < row.last_cycle) continue;
      const state = row?.state ?? 'ok';
      let next: StateRow = row ?? {
        state: 'ok',
        episode: 0,
        last_alert_at: null,
        repeats: 0,
        last_cycle: cycleKey,
      };
      let alert: { state: 'firing' | 'resolved'; subject: string; reason: string } | undefined;
      const shown =
        r.unit === 'percent'
          ? `${value.toFixed(1)}% of OPC`
          : `${Math.round(value).toLocaleString('en-US')}`;
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
          subject: `capacity:${key.slug}:${location}:episode-${next.episode}`,
          reason: `OAC ${shown} below ${r.below}`,
        };
      } else if (state === 'firing' && value > r.clearAbove) {
        next = { ...next, state: 'ok', last_alert_at: ctx.now, last_cycle: cycleKey };
        alert = {
          state: 'resolved',
          subject: `capacity:${key.slug}:${location}:episode-${next.episode}:resolved`,
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
          subject: `capacity:${key.slug}:${location}:episode-${next.episode}:repeat-${next.repeats}`,
          reason: `OAC ${shown} still below ${r.below} (repeat every ${formatDuration(r.repeatEveryMs)})`,
        };
      } else {
        next = { ...next, last_cycle: cycleKey };
      }
      ctx.store.db
        .prepare(
          `INSERT INTO capacity_state (rule, pipeline_slug, location, state, episode, since, last_alert_at, repeats, last_cycle, last_value)
           VALUES (@rule, @slug, @location, @state, @episode, @now, @last_alert_at, @repeats, @last_cycle, @value)
           ON CONFLICT (rule, pipeline_slug, location) DO UPDATE SET
             since = CASE WHEN capacity_state.state = excluded.state THEN capacity_state.since ELSE excluded.since END,
             state = excluded.state, episode = excluded.episode, last_alert_at = excluded.last_alert_at,
             repeats = excluded.repeats, last_cycle = excluded.last_cycle, last_value = excluded.last_value`,
        )
        .run({ ...key, ...next, now: ctx.now, value });
      if (!alert) continue;
      const outcome = enqueueAll(ctx, r.name, alert.subject, r.notify, {
        version: 1,
        kind: 'capacity',
        state: alert.state,
        rule: r.name,
        pipeline,
        zone,
        capacity: {
          cycle: cycle.cycle,
          gas_day: cycle.gas_day,
          locations: [{ ...l, threshold: r.below, clear_above: r.clearAbove, unit: r.unit }],
        },
      });
      alerts += outcome.sent.length;
      ctx.store.audit.record({
        at: ctx.now,
        rule: r.name,
        event: 'capacity',
        subject: `capacity:${key.slug}:${location}`,
        notice_id: null,
        decision: alert.state,
        reason: `${alert.reason} (${cycle.cycle} cycle, gas day ${cycle.gas_day})`,
      });
    }
  }
  return alerts;
}
