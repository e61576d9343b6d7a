/**
 * What the capacity feed fetches follows the rules: every pipeline a capacity rule names
 * (every tracked pipeline for a rule that names none), and of each only the nomination
 * cycles the rules ask for, `latest` always. `PIPEWATCH_CAPACITY_PIPELINES` adds
 * pipelines (all cycles) to that; it never removes any. A capacity rule can therefore not
 * sit silent because nobody remembered to list its pipeline somewhere else.
 */
import { type Cycle, NOMINATION_CYCLES } from '../domain/gas-day.js';
import type { CapacityRule, Rule } from '../rules/types.js';

/** Where a pipeline in the plan came from, when it is not a rule. */
export const CAPACITY_PIPELINES_VARIABLE = 'PIPEWATCH_CAPACITY_PIPELINES';

/** One pipeline the capacity feed fetches, and why. */
export interface PlannedPipeline {
  slug: string;
  /** Named cycles fetched once each when due, in posting order; `latest` is fetched every run. */
  cycles: Cycle[];
  /** Each rule (or the variable) that asked for this pipeline, with the cycles it wants. */
  requestedBy: Array<{ by: string; cycles: Cycle[] }>;
  /**
   * Only here because a rule names no pipeline, so it stands for "every tracked pipeline":
   * one the API has no capacity data for is skipped quietly rather than reported.
   */
  implicit: boolean;
}

/** The whole plan. */
export interface CapacityPlan {
  pipelines: PlannedPipeline[];
  /** Rules that name no pipeline while the API's pipeline list is not stored yet. */
  waitingForPipelineList: string[];
}

function cyclesOf(rule: CapacityRule): Cycle[] {
  const { cycles } = rule;
  if (!cycles) return [...NOMINATION_CYCLES];
  return NOMINATION_CYCLES.filter((c) => cycles.includes(c));
}

/**
 * The plan for `rules`, with `extra` slugs from the environment and `tracked` the slugs
 * of the API's pipeline list (empty while unknown). Pipelines in slug order.
 */
export function capacityPlan(
  rules: readonly Rule[],
  extra: readonly string[],
  tracked: readonly string[],
): CapacityPlan {
  const bySlug = new Map<string, PlannedPipeline>();
  const add = (slug: string, by: string, cycles: Cycle[], implicit: boolean) => {
    let p = bySlug.get(slug);
    if (!p) {
      p = { slug, cycles: [], requestedBy: [], implicit };
      bySlug.set(slug, p);
    }
    p.implicit &&= implicit;
    p.requestedBy.push({ by, cycles });
    p.cycles = NOMINATION_CYCLES.filter((c) => p.cycles.includes(c) || cycles.includes(c));
  };
  const waitingForPipelineList: string[] = [];
  for (const rule of rules) {
    if (rule.kind !== 'capacity') continue;
    const cycles = cyclesOf(rule);
    if (rule.pipelines) {
      for (const slug of rule.pipelines) add(slug, rule.name, cycles, false);
    } else if (tracked.length === 0) {
      waitingForPipelineList.push(rule.name);
    } else {
      for (const slug of tracked) add(slug, rule.name, cycles, true);
    }
  }
  for (const slug of extra) add(slug, CAPACITY_PIPELINES_VARIABLE, [...NOMINATION_CYCLES], false);
  const pipelines = [...bySlug.values()].sort((a, b) => a.slug.localeCompare(b.slug));
  return { pipelines, waitingForPipelineList };
}

/**
 * About how many capacity requests an hour a plan costs: `latest` of each pipeline every
 * run, and each planned cycle once a day (more only while a due cycle is not posted yet).
 */
export function planRequestsPerHour(plan: CapacityPlan, intervalMs: number): number {
  const runsPerHour = 3_600_000 / intervalMs;
  const perHour = plan.pipelines.reduce((sum, p) => sum + runsPerHour + p.cycles.length / 24, 0);
  return Math.round(perHour * 10) / 10;
}

/** `transco: latest, timely, evening (transco-low-oac; PIPEWATCH_CAPACITY_PIPELINES)`. */
export function describePlanned(p: PlannedPipeline): string {
  const by = p.requestedBy.map((r) => r.by);
  return `${p.slug}: latest, ${p.cycles.join(', ')} (${[...new Set(by)].join('; ')}${p.implicit ? '; every tracked pipeline' : ''})`;
}
