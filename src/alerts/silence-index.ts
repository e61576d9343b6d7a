/**
 * The silences sorted by what they match, so that an alert is checked only against the
 * few that could hold it back rather than against every silence stored: one person can
 * store thousands of mutes, and a sync decides thousands of alerts.
 *
 * A silence goes in one bucket per combination of the values it matches by equality
 * (its targets, pipelines and rules, each a list any of whose values matches); an alert
 * looks in the one bucket of each shape present that its own values name. A matcher the
 * index cannot use by equality (one of too many values, or any matcher but those lists)
 * is left out of the silence's bucket key and checked in full with the rest of the
 * silence (`silenceMatches`), so such a silence still holds back exactly what it says,
 * from a bucket shared with fewer others; one with no usable matcher at all lands in the
 * bucket every alert looks in. What each silence holds back is decided by
 * `silenceMatches` alone: the index only chooses which silences to ask.
 */
import { type Target, targetKey } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';
import type { Store } from '../store/index.js';
import type { SilenceMatchers, SilenceRow } from '../store/silences.js';
import { silenceMatches } from './silences.js';

/** The matchers the index sorts by, in the order of a bucket key. */
const DIMENSIONS = [
  'targets',
  'pipelines',
  'rules',
] as const satisfies readonly (keyof SilenceMatchers)[];

/**
 * A silence names at most this many buckets: a matcher whose values would take it past
 * this is left out of its key (so a silence listing dozens of targets and pipelines
 * costs dozens of entries, not their product).
 */
const MAX_BUCKETS_PER_SILENCE = 64;

/** The values of a matcher that the index may use, or undefined when it may not. */
function equalityValues(m: SilenceMatchers, dimension: (typeof DIMENSIONS)[number]) {
  const values = m[dimension];
  return Array.isArray(values) && values.every((v) => typeof v === 'string')
    ? [...new Set(values)]
    : undefined;
}

/** Whether `s` is in force at `now`. */
function inForce(s: SilenceRow, now: UtcIso): boolean {
  return s.lifted_at === null && s.starts_at <= now && (s.ends_at === null || s.ends_at > now);
}

/** The silences stored, by what they match. */
export class SilenceIndex {
  /** Bucket key (`shape` then one value or nothing per dimension, JSON) → silences, oldest first. */
  private readonly buckets = new Map<string, SilenceRow[]>();
  /** The shapes some silence has: bit i set when dimension i is in its key. */
  private readonly shapes: number[] = [];
  /** How many silences are indexed. */
  readonly size: number;

  /** `silences` oldest first, as the store lists them; those not in force are skipped when asked. */
  constructor(silences: readonly SilenceRow[]) {
    const shapes = new Set<number>();
    for (const s of silences) {
      let shape = 0;
      let keys: Array<Array<string | null>> = [[]];
      for (const [i, dimension] of DIMENSIONS.entries()) {
        const values = equalityValues(s.matchers, dimension);
        if (values && keys.length * values.length <= MAX_BUCKETS_PER_SILENCE) {
          shape |= 1 << i;
          keys = keys.flatMap((k) => values.map((v) => [...k, v]));
        } else {
          for (const k of keys) k.push(null);
        }
      }
      shapes.add(shape);
      for (const k of keys) {
        const key = JSON.stringify(k);
        const bucket = this.buckets.get(key);
        if (bucket) bucket.push(s);
        else this.buckets.set(key, [s]);
      }
    }
    this.shapes = [...shapes];
    this.size = silences.length;
  }

  /**
   * The oldest silence in force at `now` that holds back an alert of `rule` about
   * `pipeline` to `target`, if any: the one a check of every silence in order would find.
   */
  first(now: UtcIso, rule: string, pipeline: string, target: Target): SilenceRow | undefined {
    if (this.shapes.length === 0) return undefined;
    const values = [targetKey(target), pipeline, rule];
    let found: SilenceRow | undefined;
    for (const shape of this.shapes) {
      const key = JSON.stringify(values.map((v, i) => (shape & (1 << i) ? v : null)));
      for (const s of this.buckets.get(key) ?? []) {
        if (found && s.id >= found.id) break;
        if (inForce(s, now) && silenceMatches(s, rule, pipeline, target)) {
          found = s;
          break;
        }
      }
    }
    return found;
  }
}

/**
 * One index kept from one decision to the next while no silence changes: read again when
 * any process changed a silence (`SilenceStore.revision`), or when asked about an instant
 * before the one it was read at (what ended in between is not in it).
 */
export class SilenceCache {
  private index: SilenceIndex | undefined;
  private revision = -1;
  private readAt: UtcIso = '';

  /** The silences not ended at `now`, by what they match. */
  of(store: Store, now: UtcIso): SilenceIndex {
    const revision = store.silences.revision();
    if (!this.index || revision !== this.revision || now < this.readAt) {
      this.index = new SilenceIndex(store.silences.notEnded(now));
      this.revision = revision;
      this.readAt = now;
    }
    return this.index;
  }
}
