/**
 * Rules that can never match, for `rules test`: a rule whose pipelines the API does not
 * track, or whose location entries no location of its pipelines' capacity of the last 7
 * days has, sits silent however many notices and cycles are judged, and a dry run that
 * only says "nothing below the threshold (0 locations)" hides why.
 */
import { checkLocations } from '../rules/location-check.js';
import { unknownPipelines } from '../rules/pipeline-check.js';
import type { Rule } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import { pipelinesWithCapacity, storedLocations } from './known-locations.js';

/** What of a rule can never match. */
export interface NeverMatch {
  kind: Rule['kind'];
  /** Nothing the rule asks for exists: it never fires. */
  whole: boolean;
  /** Each name that matches nothing, as `rules validate` says it. */
  reasons: string[];
}

/** The pipelines a rule alerts for, `not:` aside; undefined: every pipeline. */
function pipelinesOf(rule: Rule): readonly string[] | undefined {
  return rule.kind === 'capacity' ? rule.pipelines : rule.filter.pipelines;
}

/**
 * The rules of `rules` that name a pipeline or a location the API does not have, by
 * name, judged against the stored pipeline list and the capacity stored in the 7 days
 * before `now`. Nothing is said of what cannot be known (no pipeline list, no capacity).
 */
export async function neverMatching(
  rules: readonly Rule[],
  store: AsyncStore,
  now: Date,
): Promise<Map<string, NeverMatch>> {
  const tracked = (await store.pipelines.all()).map((p) => p.slug);
  const out = new Map<string, NeverMatch>();
  const kinds = new Map(rules.map((r) => [r.name, r.kind]));
  const entry = (rule: string) => {
    let e = out.get(rule);
    if (!e) {
      e = { kind: kinds.get(rule) ?? 'notices', whole: false, reasons: [] };
      out.set(rule, e);
    }
    return e;
  };
  const strip = (rule: string, message: string) => message.replace(`rule '${rule}': `, '');
  for (const u of unknownPipelines(rules, tracked))
    entry(u.rule).reasons.push(strip(u.rule, u.message));
  const known = new Set(tracked);
  for (const rule of rules) {
    const named = pipelinesOf(rule);
    if (tracked.length > 0 && named && named.every((p) => !known.has(p)))
      entry(rule.name).whole = true;
  }
  const slugs = new Set<string>();
  for (const rule of rules)
    if (rule.kind === 'capacity' && rule.locationRefs)
      for (const slug of rule.pipelines ?? (await pipelinesWithCapacity(store))) slugs.add(slug);
  const book = await storedLocations(store, slugs, now);
  const scope = { tracked, withCapacity: await pipelinesWithCapacity(store) };
  const { unknown } = checkLocations(rules, book, scope);
  for (const u of unknown) entry(u.rule).reasons.push(strip(u.rule, u.message));
  for (const rule of rules) {
    if (rule.kind !== 'capacity' || !rule.locationRefs) continue;
    const bad = unknown.filter((u) => u.rule === rule.name).length;
    if (bad > 0 && bad === rule.locationRefs.length) entry(rule.name).whole = true;
  }
  return out;
}

/** `can never match: …` or `partly never matches: …`, for a line about the rule. */
export function neverMatchText(n: NeverMatch): string {
  return `${n.whole ? 'can never match' : 'part of it never matches'}: ${n.reasons.join('; ')}`;
}
