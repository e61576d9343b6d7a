/**
 * The daemon's watch over the location entries of the capacity rules in force (rule
 * files and subscriptions): each entry is checked against the capacity stored in the
 * last 7 days when the rules come into force, and an entry whose pipelines have none is
 * checked again as their capacity arrives. An entry no location of its pipelines matches
 * is a warning at its position, with the location meant, and an operations alert (once per
 * rule and location): the rule would otherwise sit silent forever.
 */
import type { Target } from '../domain/targets.js';
import type { CapacityEvent } from '../ingest/events.js';
import type { Logger } from '../lib/logger.js';
import {
  checkEntry,
  type KnownLocation,
  ruleLocationPipelines,
  type UnknownLocation,
} from '../rules/location-check.js';
import { textListMatcher } from '../rules/match.js';
import { type CapacityRule, formatProblem, type LocationRef, type Rule } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import type { DecisionContext } from './context.js';
import { mergeBooks, pipelinesWithCapacity, storedLocations } from './known-locations.js';
import { decideUnknownLocation } from './operations.js';

/** An entry not known to match yet: nothing known of some of its pipelines, or nothing matched. */
interface Pending {
  rule: CapacityRule;
  ref: LocationRef;
  /** The pipelines its locations can be at. */
  pipelines: string[];
  /** Those of them whose capacity has not been seen. */
  unseen: Set<string>;
  /** What was reported when it was found to match nothing (logged, an operations alert queued). */
  problem?: UnknownLocation;
}

export interface LocationWatchDeps {
  store: AsyncStore;
  logger: Logger;
  opsTarget?: Target | undefined;
}

/** `rule \0 its pipelines \0 entry`: one entry of one rule as written now. */
function keyOf(rule: CapacityRule, ref: LocationRef): string {
  return `${rule.name}\u0000${rule.pipelines?.join(',') ?? '*'}\u0000${ref.location.toLowerCase()}`;
}

/** Watches the location entries of the rules in force; see the file's comment. */
export class LocationWatch {
  private rules: readonly Rule[] = [];
  /** The rules changed since they were last reviewed. */
  private stale = true;
  /** Entries that matched a location: never checked again while their rule stays. */
  private readonly known = new Set<string>();
  private readonly pending = new Map<string, Pending>();
  /** Entries whose pipelines had no capacity, already logged as not checked yet. */
  private readonly waiting = new Set<string>();

  constructor(private readonly deps: LocationWatchDeps) {}

  /** The rules in force changed: their entries are reviewed at the next check or cycle. */
  setRules(rules: readonly Rule[]): void {
    this.rules = rules;
    this.stale = true;
  }

  /** The pipeline list was read: the pipelines of rules that name none may have changed. */
  pipelinesChanged(): void {
    this.stale = true;
  }

  /**
   * Checks every entry not known yet against the capacity stored in the 7 days before
   * `ctx.now`; reports those no location matches, and returns every one reported so far
   * that is still unknown. Call inside a transaction.
   */
  async review(ctx: DecisionContext): Promise<UnknownLocation[]> {
    this.stale = false;
    const scope = {
      tracked: (await this.deps.store.pipelines.all()).map((p) => p.slug),
      withCapacity: await pipelinesWithCapacity(this.deps.store),
    };
    const book = new Map<string, KnownLocation[] | null>();
    const now = new Date(Date.parse(ctx.now));
    const lookup = async (slug: string) => {
      if (!book.has(slug))
        book.set(slug, (await storedLocations(this.deps.store, [slug], now)).get(slug) ?? null);
      return book.get(slug) ?? undefined;
    };
    const keys = new Set<string>();
    for (const rule of this.rules) {
      if (rule.kind !== 'capacity' || !rule.locationRefs) continue;
      const pipelines = ruleLocationPipelines(rule, scope);
      if (!pipelines) continue;
      for (const ref of rule.locationRefs) {
        const key = keyOf(rule, ref);
        keys.add(key);
        const before = this.pending.get(key);
        if (this.known.has(key) || before?.pipelines.join(',') === pipelines.join(',')) continue;
        const view = new Map<string, KnownLocation[]>();
        for (const slug of pipelines) {
          const locations = await lookup(slug);
          if (locations) view.set(slug, locations);
        }
        const verdict = checkEntry(rule, ref, pipelines, view);
        if (verdict.kind === 'known') {
          this.known.add(key);
          continue;
        }
        const unseen = new Set(verdict.kind === 'unchecked' ? verdict.unchecked.pipelines : []);
        const p: Pending = {
          rule,
          ref,
          pipelines,
          unseen,
          ...(before?.problem ? { problem: before.problem } : {}),
        };
        this.pending.set(key, p);
        if (verdict.kind === 'unknown') await this.report(ctx, key, p, verdict.problem);
        else this.wait(key, p);
      }
    }
    // Rules no longer in force take their entries with them.
    for (const key of this.known) if (!keys.has(key)) this.known.delete(key);
    for (const key of this.pending.keys()) if (!keys.has(key)) this.pending.delete(key);
    return [...this.pending.values()].flatMap((p) => p.problem ?? []);
  }

  /**
   * A capacity cycle arrived: each entry waiting on its pipeline is checked against its
   * locations, and reported once every pipeline of the entry has shown capacity without
   * a match. Call inside the event's transaction.
   */
  async capacity(ctx: DecisionContext, e: CapacityEvent): Promise<void> {
    if (this.stale) await this.review(ctx);
    const slug = e.cycle.pipeline_slug;
    for (const [key, p] of this.pending) {
      if (!p.pipelines.includes(slug)) continue;
      const matches = textListMatcher([p.ref.location]);
      if (e.locations.some((l) => matches(l.location) || matches(l.identifier))) {
        this.pending.delete(key);
        this.known.add(key);
        if (p.problem)
          this.deps.logger.info(
            { rule: p.rule.name, location: p.ref.location, pipeline: slug },
            `rule '${p.rule.name}': location '${p.ref.location}' now matches a location of ${slug}`,
          );
        continue;
      }
      p.unseen.delete(slug);
      if (p.problem || p.unseen.size > 0) continue;
      const stored = await storedLocations(
        this.deps.store,
        p.pipelines,
        new Date(Date.parse(ctx.now)),
      );
      const seen = mergeBooks(stored, new Map([[slug, e.locations]]));
      const verdict = checkEntry(p.rule, p.ref, p.pipelines, seen);
      if (verdict.kind === 'unknown') await this.report(ctx, key, p, verdict.problem);
    }
  }

  private async report(
    ctx: DecisionContext,
    key: string,
    p: Pending,
    u: UnknownLocation,
  ): Promise<void> {
    if (p.problem) return;
    p.problem = u;
    this.deps.logger.warn(
      {
        rule: u.rule,
        location: u.location,
        pipelines: u.pipelines,
        suggestion: u.suggestion ?? null,
      },
      `${formatProblem(u)}; the rule never fires there`,
    );
    if (this.deps.opsTarget) await decideUnknownLocation(ctx, this.deps.opsTarget, u);
    this.waiting.delete(key);
  }

  private wait(key: string, p: Pending): void {
    if (this.waiting.has(key)) return;
    this.waiting.add(key);
    const where = p.unseen.size > 0 ? [...p.unseen].join(', ') : 'any pipeline';
    this.deps.logger.info(
      { rule: p.rule.name, location: p.ref.location, pipelines: [...p.unseen] },
      `${formatProblem({ ...p.ref.at, message: '' }).slice(0, -2)}: rule '${p.rule.name}': location '${p.ref.location}' not checked yet: no capacity of ${where} stored in the last 7 days; it is checked as that capacity arrives`,
    );
  }
}
