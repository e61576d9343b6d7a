/**
 * The silences sorted by what they match, so that an alert is checked only against the
 * few that could hold it back rather than against every silence stored: one person can
 * store thousands of mutes, and a sync decides thousands of alerts.
 *
 * A silence goes in one bucket per combination of the values it matches by equality
 * (its `=` matchers of target, pipeline and rule, any of a key's values matching); an alert
 * looks in the one bucket of each shape present that its own values name. A matcher the
 * index cannot use by equality (one of too many values, or any other matcher: `!=`, a
 * regex, a notice field)
 * is left out of the silence's bucket key and checked in full with the rest of the
 * silence (`silenceMatches`), so such a silence still holds back exactly what it says,
 * from a bucket shared with fewer others; one with no usable matcher at all lands in the
 * bucket every alert looks in. What each silence holds back is decided by
 * `silenceMatches` alone: the index only chooses which silences to ask.
 */
import type { UtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import type { MatcherLabel, SilenceMatchers, SilenceRow } from '../store/silences.js';
import { type AlertLabels, equalValues } from './silence-matchers.js';
import { silenceMatches } from './silences.js';

/** The matchers the index sorts by, in the order of a bucket key. */
const DIMENSIONS = ['target', 'pipeline', 'rule'] as const satisfies readonly MatcherLabel[];

/**
 * A silence names at most this many buckets: a matcher whose values would take it past
 * this is left out of its key (so a silence listing dozens of targets and pipelines
 * costs dozens of entries, not their product).
 */
const MAX_BUCKETS_PER_SILENCE = 64;

/**
 * The `=` values of a key that the index may use, in lower case (matchers ignore case),
 * each once, or undefined when the silence has none.
 */
function equalityValues(
  m: SilenceMatchers,
  dimension: (typeof DIMENSIONS)[number],
): readonly string[] | undefined {
  const values = equalValues(m, dimension);
  return values && [...new Set(values.map((v) => v.toLowerCase()))];
}

/** Whether `s` is in force at `now`. */
function inForce(s: SilenceRow, now: UtcIso): boolean {
  return s.lifted_at === null && s.starts_at <= now && (s.ends_at === null || s.ends_at > now);
}

/**
 * Between the shape and the values of a bucket key. A value that holds it may make two
 * keys one: a bucket then holds a silence more to check, never one less.
 */
const SEPARATOR = '\u0001';

/** The silences stored, by what they match. */
export class SilenceIndex {
  /** Bucket key (the shape, then the value of each dimension in it) → silences, oldest first. */
  private readonly buckets = new Map<string, SilenceRow[]>();
  /** The shapes some silence has: bit i set when dimension i is in its key. */
  private readonly shapes: number[];
  /** How many silences are indexed. */
  readonly size: number;

  /** `silences` oldest first, as the store lists them; those not in force are skipped when asked. */
  constructor(silences: readonly SilenceRow[]) {
    const shapes = new Set<number>();
    const lists: Array<readonly string[]> = [];
    for (const s of silences) {
      let shape = 0;
      let count = 1;
      lists.length = 0;
      for (const [i, dimension] of DIMENSIONS.entries()) {
        const values = equalityValues(s.matchers, dimension);
        if (!values || count * values.length > MAX_BUCKETS_PER_SILENCE) continue;
        shape |= 1 << i;
        count *= values.length;
        lists.push(values);
      }
      shapes.add(shape);
      let keys = [String(shape)];
      for (const values of lists) {
        const longer: string[] = [];
        for (const key of keys) for (const v of values) longer.push(key + SEPARATOR + v);
        keys = longer;
      }
      for (const key of keys) {
        const bucket = this.buckets.get(key);
        if (bucket) bucket.push(s);
        else this.buckets.set(key, [s]);
      }
    }
    this.shapes = [...shapes];
    this.size = silences.length;
  }

  /**
   * The oldest silence in force at `now` that holds back an alert with these values, if
   * any: the one a check of every silence in order would find.
   */
  first(now: UtcIso, labels: AlertLabels): SilenceRow | undefined {
    if (this.shapes.length === 0) return undefined;
    const values = DIMENSIONS.map((d) => labels[d].toLowerCase());
    let found: SilenceRow | undefined;
    for (const shape of this.shapes) {
      let key = String(shape);
      for (const [i, v] of values.entries()) if (shape & (1 << i)) key += SEPARATOR + v;
      const bucket = this.buckets.get(key);
      if (!bucket) continue;
      for (const s of bucket) {
        if (found && s.id >= found.id) break;
        if (inForce(s, now) && silenceMatches(s, labels)) {
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
  async of(store: AsyncStore, now: UtcIso): Promise<SilenceIndex> {
    const revision = await store.silences.revision();
    if (!this.index || revision !== this.revision || now < this.readAt) {
      this.index = new SilenceIndex(await store.silences.notEnded(now));
      this.revision = revision;
      this.readAt = now;
    }
    return this.index;
  }
}
