/**
 * Verdicts on many notices, the same as `explainNotice` gives each, at a cost that
 * follows the rules a notice can match rather than every rule: `rules test` over 50,000
 * notices with 10,000 subscriptions.
 *
 * A rule's list fields (pipelines, types, categories, statuses) say the same of every
 * notice with the same four values, a combination (a feed has a few thousand). Each
 * combination is met once: the index (`GroupIndex.candidates`) gives the groups that may
 * match it, and of those the ones whose list fields do are kept. A notice is judged by
 * those groups alone (their text, exclusions, and what the daemon did with it). Every
 * other rule is not matched on a list field, the same for the whole combination: its
 * verdict is made only when every verdict is asked for (`every`), and it is counted by
 * combination (`missCounts`) rather than notice by notice. What a list field fails is
 * worked out once per value of the field (`FieldFails`), not per combination.
 */
import {
  fieldsKey,
  type ListMatcher,
  listMatcher,
  type Mismatch,
  type PreparedNotice,
  type PreparedValue,
  prepareNotice,
} from '../rules/match.js';
import type { DeadlineRule, NoticeFilter, NoticeRule } from '../rules/types.js';
import type { StoredNotice } from '../store/notices.js';
import type { Notice } from '../upstream/schemas.js';
import { groupVerdicts, notMatched } from './explain.js';
import type { CompiledRules, RuleGroup } from './rules.js';
import type { ExplainOptions, Verdict } from './verdict.js';

type AnyGroup = RuleGroup<NoticeRule | DeadlineRule>;

/** The list fields, in the order a filter checks them: a miss is stored as 1 + its index. */
const LIST_FIELDS: readonly Mismatch[] = ['pipelines', 'types', 'categories', 'statuses'];
/** The notice's value each list field reads, in the same order. */
const VALUES = ['pipeline', 'type', 'category', 'status'] as const;

/** Combinations kept before they are met afresh (bounds memory on odd feeds). */
const KEPT = 50_000;

/**
 * Which groups one list field fails, by value: a field's verdict depends on the notice's
 * value alone, and a feed has a few hundred values of each, so every group meets each
 * value once rather than each combination. One per list field.
 */
class FieldFails {
  private readonly matchers: Array<ListMatcher | undefined>;
  private readonly byValue = new Map<string, Uint8Array>();

  constructor(groups: readonly AnyGroup[], field: Mismatch) {
    this.matchers = groups.map((g) => {
      const entries = g.filter[field as Exclude<keyof NoticeFilter, 'text'>];
      return entries ? listMatcher(entries) : undefined;
    });
  }

  /** 1 for each group (by place) whose entries for this field miss `value`, else 0. */
  of(value: PreparedValue): Uint8Array {
    let fails = this.byValue.get(value.lower);
    if (fails) return fails;
    fails = new Uint8Array(this.matchers.length);
    for (const [place, m] of this.matchers.entries()) if (m && !m(value)) fails[place] = 1;
    if (this.byValue.size >= KEPT) this.byValue.clear();
    this.byValue.set(value.lower, fails);
    return fails;
  }
}

/**
 * One combination of list fields: the groups whose list fields match it, and the field
 * each other group fails on first, the same for every notice with these four values.
 */
export class Combination {
  /** Each group's first failing list field by place, made when first asked for. */
  private fails: Uint8Array | undefined;

  constructor(
    /** What each list field fails of this combination's values, in `LIST_FIELDS` order. */
    private readonly fields: readonly Uint8Array[],
    /** The places of the groups whose list fields match, ascending. */
    readonly matched: readonly number[],
  ) {}

  /**
   * For each group by place, 0 when its list fields match, else 1 + the index of the
   * field it fails on first in `LIST_FIELDS`.
   */
  failsOf(): Uint8Array {
    if (this.fails) return this.fails;
    const [p, t, c, s] = this.fields as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    const fails = new Uint8Array(p.length);
    for (let place = 0; place < fails.length; place++)
      fails[place] = p[place] ? 1 : t[place] ? 2 : c[place] ? 3 : s[place] ? 4 : 0;
    this.fails = fails;
    return fails;
  }
}

/** The verdicts of the groups a notice's list fields match, and its combination. */
export interface IndexedVerdicts {
  /** In rule order. */
  verdicts: Verdict[];
  /** Each verdict's place among every rule's verdicts. */
  places: number[];
  combination: Combination;
}

/** Judges notices against one compiled rule set, remembering what each combination matches. */
export class IndexedExplainer {
  /** Every notice and deadline group, in the order `explainNotice` judges them. */
  readonly groups: readonly AnyGroup[];
  /** Where each group's rules start among every rule's verdicts, by place. */
  private readonly starts: number[] = [];
  private readonly places = new Map<AnyGroup, number>();
  private readonly combinations = new Map<string, Combination>();
  private readonly fieldFails: readonly FieldFails[];

  constructor(private readonly rules: CompiledRules) {
    this.groups = [...rules.notices.groups, ...rules.deadlines.groups];
    this.fieldFails = LIST_FIELDS.map((f) => new FieldFails(this.groups, f));
    let start = 0;
    for (const [place, g] of this.groups.entries()) {
      this.places.set(g, place);
      this.starts.push(start);
      start += g.rules.length;
    }
  }

  /** The verdicts of the rules `notice`'s list fields do not rule out. */
  explain(notice: Notice | StoredNotice, options: ExplainOptions): IndexedVerdicts {
    const prepared = prepareNotice(notice);
    const combination = this.combinationOf(prepared);
    const verdicts: Verdict[] = [];
    const places: number[] = [];
    for (const place of combination.matched) {
      const from = verdicts.length;
      groupVerdicts(this.groups[place], prepared, options, verdicts);
      for (let i = from; i < verdicts.length; i++) places.push(this.starts[place] + i - from);
    }
    return { verdicts, places, combination };
  }

  /**
   * Every rule's verdict, in the order `explainNotice` gives them: `verdicts` (those of
   * `judged`, or the same adjusted, one for one) in their places, and between them each
   * rule not matched on a list field, passed through `adjust`.
   */
  every(
    judged: IndexedVerdicts,
    verdicts: readonly Verdict[] = judged.verdicts,
    adjust: (v: Verdict) => Verdict = (v) => v,
  ): Verdict[] {
    const fails = judged.combination.failsOf();
    const out: Verdict[] = [];
    let next = 0;
    for (const [place, g] of this.groups.entries()) {
      const code = fails[place];
      if (code === 0) {
        const end = this.starts[place] + g.rules.length;
        while (next < verdicts.length && judged.places[next] < end) out.push(verdicts[next++]);
        continue;
      }
      const field = LIST_FIELDS[code - 1];
      for (const r of g.rules) out.push(adjust(notMatched(r, field)));
    }
    return out;
  }

  /**
   * How many notices each group missed on each list field, given how many notices each
   * combination had: `[group, field, notices]` for every count above zero, in group order.
   */
  missCounts(combinations: ReadonlyMap<Combination, number>): Array<[AnyGroup, Mismatch, number]> {
    const width = LIST_FIELDS.length;
    const counts = new Float64Array(this.groups.length * width);
    for (const [combination, notices] of combinations) {
      const fails = combination.failsOf();
      for (let place = 0; place < fails.length; place++) {
        const code = fails[place];
        if (code !== 0) counts[place * width + code - 1] += notices;
      }
    }
    const out: Array<[AnyGroup, Mismatch, number]> = [];
    for (const [place, g] of this.groups.entries())
      for (const [i, field] of LIST_FIELDS.entries()) {
        const notices = counts[place * width + i];
        if (notices > 0) out.push([g, field, notices]);
      }
    return out;
  }

  /** The combination of `n`'s list fields: met before, or judged now through the index. */
  private combinationOf(n: PreparedNotice): Combination {
    const key = fieldsKey(n);
    let combination = this.combinations.get(key);
    if (combination) return combination;
    const matched: number[] = [];
    for (const index of [this.rules.notices, this.rules.deadlines])
      for (const g of index.candidates(n) as AnyGroup[]) {
        if (g.parts.fields(n) !== null) continue;
        const place = this.places.get(g);
        // Every group the indexes hold was placed when this was built.
        if (place === undefined)
          throw new Error(`the rules ${g.rules.map((r) => r.name).join(', ')} were not placed`);
        matched.push(place);
      }
    const fields = VALUES.map((v, i) => this.fieldFails[i].of(n[v]));
    combination = new Combination(
      fields,
      matched.sort((a, b) => a - b),
    );
    if (this.combinations.size >= KEPT) this.combinations.clear();
    this.combinations.set(key, combination);
    return combination;
  }
}
