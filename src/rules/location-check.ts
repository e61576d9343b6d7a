/**
 * Location entries of capacity rules that no location of their pipelines has. The schema
 * can only check that an entry has a letter or a digit; a typo such as `STATION 58` for
 * `STATION 85` would leave the rule silent forever, so each entry is checked against the
 * locations its pipelines are known to have, matched exactly as the engine matches them
 * (`textListMatcher`: equal to the name or identifier, or its whole words, any case).
 */
import { suggest } from '../lib/suggest.js';
import { textListMatcher } from './match.js';
import type { CapacityRule, Rule, RuleProblem, SourcePosition } from './types.js';

/** A location as capacity names it: what a `locations` entry may match. */
export interface KnownLocation {
  location: string;
  identifier: string;
}

/**
 * What is known of pipelines' locations, by slug. A pipeline missing from it: nothing is
 * known of its locations (no capacity of it stored or fetched), so nothing is checked.
 */
export type LocationBook = ReadonlyMap<string, readonly KnownLocation[]>;

/** One location entry that no location of its pipelines matches, in one rule. */
export interface UnknownLocation extends RuleProblem {
  rule: string;
  /** The entry as written. */
  location: string;
  /** The pipelines whose locations it was checked against; empty: any pipeline (the rule names none). */
  pipelines: string[];
  /** The location name or identifier it was most likely meant to be. */
  suggestion: string | undefined;
}

/** One location entry that could not be checked: nothing is known of some of its pipelines. */
export interface UncheckedLocation extends SourcePosition {
  rule: string;
  location: string;
  /** The pipelines of the rule whose locations are not known. */
  pipelines: string[];
}

/** Whether `entry` matches a location of `locations` as the engine would; if not, the one meant. */
export function findLocation(
  entry: string,
  locations: readonly KnownLocation[],
): { found: true } | { found: false; suggestion: string | undefined } {
  const matches = textListMatcher([entry]);
  if (locations.some((l) => matches(l.location) || matches(l.identifier))) return { found: true };
  return { found: false, suggestion: suggest(entry, candidates(locations)) };
}

/** Every name and identifier, each once. */
function candidates(locations: readonly KnownLocation[]): string[] {
  const out = new Set<string>();
  for (const l of locations) {
    if (l.location) out.add(l.location);
    if (l.identifier) out.add(l.identifier);
  }
  return [...out];
}

/** `transco`, `transco or tgp`, `any pipeline` (none named): where a location was looked for. */
export function pipelinesText(pipelines: readonly string[]): string {
  if (pipelines.length === 0) return 'any pipeline';
  return pipelines.length === 1
    ? pipelines[0]
    : `${pipelines.slice(0, -1).join(', ')} or ${pipelines.at(-1)}`;
}

/** `location 'STATION 58' matches no location of transco — did you mean 'STATION 85'?` */
export function unknownLocationText(
  location: string,
  pipelines: readonly string[],
  suggestion: string | undefined,
): string {
  const meant = suggestion === undefined ? '' : ` — did you mean '${suggestion}'?`;
  return `location '${location}' matches no location of ${pipelinesText(pipelines)}${meant}`;
}

/** The pipelines known to pipewatch: what a rule's pipelines are read against. */
export interface PipelineScope {
  /** The API's pipeline slugs; empty while not known. */
  tracked: readonly string[];
  /** Those with capacity data, for rules that name no pipeline; default `tracked`. */
  withCapacity?: readonly string[];
}

/**
 * The pipelines a capacity rule's locations can be at: those it names that the API
 * tracks (all it names while the list is not known), or, when it names none, every one
 * with capacity (`fallback` while the list is not known). Undefined when every slug it
 * names is unknown: that is reported as such, and there is nothing to look in.
 */
export function ruleLocationPipelines(
  rule: CapacityRule,
  scope: PipelineScope,
  fallback: readonly string[] = [],
): string[] | undefined {
  const { tracked } = scope;
  if (!rule.pipelines)
    return [...(tracked.length > 0 ? (scope.withCapacity ?? tracked) : fallback)];
  if (tracked.length === 0) return [...rule.pipelines];
  const known = new Set(tracked);
  const named = rule.pipelines.filter((p) => known.has(p));
  return named.length > 0 ? named : undefined;
}

/** The outcome of checking one entry of one rule. */
export type LocationVerdict =
  | { kind: 'known' }
  | { kind: 'unknown'; problem: UnknownLocation }
  | { kind: 'unchecked'; unchecked: UncheckedLocation };

/**
 * One entry of a rule against `book`: known when a location of one of `pipelines`
 * matches it; unknown when every one of them is in the book and none matches; otherwise
 * not checked.
 */
export function checkEntry(
  rule: CapacityRule,
  ref: { location: string; at: SourcePosition },
  pipelines: readonly string[],
  book: LocationBook,
): LocationVerdict {
  const matches = textListMatcher([ref.location]);
  const missing: string[] = [];
  const seen: KnownLocation[] = [];
  for (const slug of pipelines) {
    const locations = book.get(slug);
    if (!locations) {
      missing.push(slug);
      continue;
    }
    if (locations.some((l) => matches(l.location) || matches(l.identifier)))
      return { kind: 'known' };
    seen.push(...locations);
  }
  if (missing.length > 0 || pipelines.length === 0)
    return {
      kind: 'unchecked',
      unchecked: { ...ref.at, rule: rule.name, location: ref.location, pipelines: missing },
    };
  const suggestion = suggest(ref.location, candidates(seen));
  const named = rule.pipelines ? [...pipelines] : [];
  const text = unknownLocationText(ref.location, named, suggestion);
  return {
    kind: 'unknown',
    problem: {
      ...ref.at,
      rule: rule.name,
      location: ref.location,
      pipelines: named,
      suggestion,
      message: `rule '${rule.name}': ${text}`,
    },
  };
}

/**
 * Every location entry of the capacity rules of `rules` checked against `book`: those
 * no location of their pipelines matches (at the position they were written, with the
 * name meant), and those that could not be checked.
 */
export function checkLocations(
  rules: readonly Rule[],
  book: LocationBook,
  scope: PipelineScope,
): { unknown: UnknownLocation[]; unchecked: UncheckedLocation[] } {
  const unknown: UnknownLocation[] = [];
  const unchecked: UncheckedLocation[] = [];
  for (const rule of rules) {
    if (rule.kind !== 'capacity' || !rule.locationRefs) continue;
    const pipelines = ruleLocationPipelines(rule, scope, [...book.keys()]);
    if (!pipelines) continue;
    for (const ref of rule.locationRefs) {
      const v = checkEntry(rule, ref, pipelines, book);
      if (v.kind === 'unknown') unknown.push(v.problem);
      else if (v.kind === 'unchecked') unchecked.push(v.unchecked);
    }
  }
  return { unknown, unchecked };
}
