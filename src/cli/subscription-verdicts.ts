/**
 * Verdicts on a notice with the subscriptions among the rules, as `rules test` and `why`
 * show them. On top of what `explainNotice` says of every rule: a reminder asked for one
 * notice ("Remind me") is judged on that notice only; a subscription made after the
 * notice last changed says it did not exist yet (the daemon judges a notice when it
 * arrives or changes, so it never saw this one), rather than that it does not match; and
 * silences say what they held back, or would hold back now.
 */
import { type ExplainOptions, explainNotice, type Verdict } from '../alerts/explain.js';
import { type Combination, IndexedExplainer } from '../alerts/explain-index.js';
import { type CompiledRules, compileRules } from '../alerts/rules.js';
import { alertLabels } from '../alerts/silence-matchers.js';
import { mutedReason, silenceMatches } from '../alerts/silences.js';
import type { Rule } from '../rules/types.js';
import type { StoredNotice } from '../store/notices.js';
import type { SilenceRow } from '../store/silences.js';
import type { Notice } from '../upstream/schemas.js';

/** What the verdicts are adjusted with. */
export interface SubscriptionVerdictOptions extends ExplainOptions {
  /** The silences in force now; an alert that fires now to a target one matches is held back. */
  silences: readonly SilenceRow[];
}

/** A reminder for one notice, as an ordinary deadline rule judged on that notice alone. */
function unbound(rule: Rule): Rule {
  if (!rule.origin) return rule;
  const { noticeId: _one, ...origin } = rule.origin;
  return { ...rule, origin };
}

const NOT_IN_FORCE_THEN =
  /^before the rule: [\s\S]*?A notice is judged when it arrives or changes: /;

/** The verdict of a subscription the daemon never judged this notice with: made after it last changed. */
function didNotExist(v: Verdict, createdAt: string, n: StoredNotice): Verdict {
  if (v.outcome !== 'not-matched' && v.outcome !== 'excluded' && v.outcome !== 'not-in-force')
    return v;
  const made = `did not exist yet: made ${createdAt}, after the notice last changed (${n.last_changed_at})`;
  switch (v.outcome) {
    case 'not-matched':
    case 'excluded':
      return { ...v, reason: `${made}; as written it would not alert on it anyway: ${v.reason}` };
    case 'not-in-force': {
      const then = v.reason.replace(NOT_IN_FORCE_THEN, '');
      return {
        ...v,
        reason: `${made}; a subscription alerts only on what is new or updated after it was made: ${then}`,
      };
    }
    default:
      return v;
  }
}

/** What one notice's audit trail says of each rule, read once for all its verdicts. */
interface Heard {
  /** Rules with any decision recorded about the notice. */
  decided: Set<string>;
  /** What silences held back, by rule. */
  muted: Map<string, string[]>;
}

function heard(o: SubscriptionVerdictOptions): Heard {
  const decided = new Set<string>();
  const muted = new Map<string, string[]>();
  for (const a of o.history?.audit ?? []) {
    decided.add(a.rule);
    if (a.decision !== 'muted') continue;
    const reasons = muted.get(a.rule);
    if (reasons) reasons.push(a.reason);
    else muted.set(a.rule, [a.reason]);
  }
  return { decided, muted };
}

/** Appends the silences' part: what they held back of this notice, or hold back now. */
function withSilences(
  v: Verdict,
  rule: Rule,
  n: Notice | StoredNotice,
  o: SubscriptionVerdictOptions,
  muted: readonly string[],
): Verdict {
  if (muted.length === 0 && (v.outcome !== 'fires' || o.silences.length === 0)) return v;
  const held = muted.filter((reason) => !v.reason.includes(reason));
  const now =
    v.outcome === 'fires'
      ? rule.notify.flatMap((t) => {
          const s = o.silences.find((x) =>
            silenceMatches(x, alertLabels(rule.name, n.pipeline_slug, t, n)),
          );
          return s ? [mutedReason(s, t)] : [];
        })
      : [];
  if (held.length === 0 && now.length === 0) return v;
  const parts = [
    ...(held.length > 0 ? [`held back before: ${held.join('; ')}`] : []),
    ...(now.length > 0 ? [`held back if it fired now: ${now.join('; ')}`] : []),
  ];
  return { ...v, reason: `${v.reason}; ${parts.join('; ')}` };
}

/** The rules of each compiled set by name, made once per set rather than once per notice. */
const rulesByName = new WeakMap<CompiledRules, Map<string, Rule>>();

function byNameOf(compiled: CompiledRules): Map<string, Rule> {
  let byName = rulesByName.get(compiled);
  if (!byName) {
    byName = new Map(compiled.all.map((r) => [r.name, r]));
    rulesByName.set(compiled, byName);
  }
  return byName;
}

/** When each subscription was made, parsed once rather than once per verdict. */
const madeAt = new WeakMap<{ createdAt: string }, number>();

function createdMs(origin: { createdAt: string }): number {
  let ms = madeAt.get(origin);
  if (ms === undefined) {
    ms = Date.parse(origin.createdAt);
    madeAt.set(origin, ms);
  }
  return ms;
}

/** Adjusts each verdict on `notice` as described above. */
function adjuster(
  compiled: CompiledRules,
  notice: Notice | StoredNotice,
  o: SubscriptionVerdictOptions,
): (v: Verdict) => Verdict {
  const byName = byNameOf(compiled);
  const stored = 'baseline' in notice ? notice : undefined;
  const trail = heard(o);
  const changed = stored ? Date.parse(stored.last_changed_at) : Number.NaN;
  return (v) => {
    const rule = byName.get(v.rule);
    if (!rule) return v;
    let out = v;
    const origin = rule.origin;
    if (
      stored &&
      o.history &&
      origin &&
      origin.noticeId === undefined &&
      createdMs(origin) > changed &&
      !trail.decided.has(v.rule)
    )
      out = didNotExist(out, origin.createdAt, stored);
    return withSilences(out, rule, notice, o, trail.muted.get(v.rule) ?? []);
  };
}

/** The verdicts of the reminders asked for this very notice ("Remind me"), unadjusted. */
function ownVerdicts(
  compiled: CompiledRules,
  notice: Notice | StoredNotice,
  o: SubscriptionVerdictOptions,
): Verdict[] {
  const own = compiled.deadlinesByNotice.get(notice.id);
  return own && own.length > 0 ? explainNotice(compileRules(own.map(unbound)), notice, o) : [];
}

/**
 * Every rule's verdict on `notice`, subscriptions included, adjusted as described above:
 * each rule judged in turn, for one notice (`why`). `NoticeJudge` gives the same for many.
 */
export function judgeNotice(
  compiled: CompiledRules,
  notice: Notice | StoredNotice,
  o: SubscriptionVerdictOptions,
): Verdict[] {
  const verdicts = [...explainNotice(compiled, notice, o), ...ownVerdicts(compiled, notice, o)];
  return verdicts.map(adjuster(compiled, notice, o));
}

/** One notice judged by `NoticeJudge`. */
export interface JudgedNotice {
  /**
   * The verdicts of the rules its list fields do not rule out, then those of reminders
   * asked for it, in the order `judgeNotice` gives them; every other rule is not matched
   * on a list field.
   */
  judged: Verdict[];
  /** Its combination of list fields, which says which rules it misses and on what. */
  combination: Combination;
  /** Every verdict, as `judgeNotice` gives them: made only when asked for. */
  every(): Verdict[];
}

/**
 * Judges many notices against one rule set with the verdicts `judgeNotice` gives, each
 * notice only by the rules it can match (`explain-index.ts`): `rules test` over a long
 * window with thousands of subscriptions.
 */
export class NoticeJudge {
  readonly explainer: IndexedExplainer;

  constructor(private readonly compiled: CompiledRules) {
    this.explainer = new IndexedExplainer(compiled);
  }

  judge(notice: Notice | StoredNotice, o: SubscriptionVerdictOptions): JudgedNotice {
    const indexed = this.explainer.explain(notice, o);
    const adjust = adjuster(this.compiled, notice, o);
    const verdicts = indexed.verdicts.map(adjust);
    const own = ownVerdicts(this.compiled, notice, o).map(adjust);
    return {
      judged: [...verdicts, ...own],
      combination: indexed.combination,
      every: () => [...this.explainer.every(indexed, verdicts, adjust), ...own],
    };
  }
}
