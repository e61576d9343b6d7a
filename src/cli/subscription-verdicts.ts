/**
 * Verdicts on a notice with the subscriptions among the rules, as `rules test` and `why`
 * show them. On top of what `explainNotice` says of every rule: a reminder asked for one
 * notice ("Remind me") is judged on that notice only; a subscription made after the
 * notice last changed says it did not exist yet (the daemon judges a notice when it
 * arrives or changes, so it never saw this one), rather than that it does not match; and
 * silences say what they held back, or would hold back now.
 */
import { type ExplainOptions, explainNotice, type Verdict } from '../alerts/explain.js';
import { type CompiledRules, compileRules } from '../alerts/rules.js';
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
function didNotExist(v: Verdict, rule: Rule, n: StoredNotice): Verdict {
  const made = `did not exist yet: made ${rule.origin!.createdAt}, after the notice last changed (${n.last_changed_at})`;
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

function isLater(a: string, b: string): boolean {
  return Date.parse(a) > Date.parse(b);
}

/** Appends the silences' part: what they held back of this notice, or hold back now. */
function withSilences(
  v: Verdict,
  rule: Rule,
  n: Notice | StoredNotice,
  o: SubscriptionVerdictOptions,
): Verdict {
  const held = (o.history?.audit ?? [])
    .filter((a) => a.rule === v.rule && a.decision === 'muted')
    .map((a) => a.reason)
    .filter((reason) => !v.reason.includes(reason));
  const now =
    v.outcome === 'fires'
      ? rule.notify.flatMap((t) => {
          const s = o.silences.find((x) => silenceMatches(x, rule.name, n.pipeline_slug, t));
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

/** Every rule's verdict on `notice`, subscriptions included, adjusted as described above. */
export function judgeNotice(
  compiled: CompiledRules,
  notice: Notice | StoredNotice,
  o: SubscriptionVerdictOptions,
): Verdict[] {
  const verdicts = explainNotice(compiled, notice, o);
  const own = compiled.deadlinesByNotice.get(notice.id);
  if (own && own.length > 0)
    verdicts.push(...explainNotice(compileRules(own.map(unbound)), notice, o));
  const byName = byNameOf(compiled);
  const stored = 'baseline' in notice ? notice : undefined;
  return verdicts.map((v) => {
    const rule = byName.get(v.rule);
    if (!rule) return v;
    let out = v;
    const origin = rule.origin;
    if (
      stored &&
      o.history &&
      origin &&
      origin.noticeId === undefined &&
      isLater(origin.createdAt, stored.last_changed_at) &&
      !o.history.audit.some((a) => a.rule === v.rule)
    )
      out = didNotExist(out, rule, stored);
    return withSilences(out, rule, notice, o);
  });
}
