/**
 * The rules as the daemon has them in force: the rule files' and the subscriptions
 * stored in the database (made from chat or the command line), so that every command
 * that judges or names rules (`rules test`, `why`, `status`, `silence add`) sees the
 * same set. A rule is shown with where it came from: a file position for a rule file's,
 * the subscription's label (`slack:C0GAS by U0ALICE, 2026-11-23`) for a subscription's.
 */
import { type LoadedRules, loadRules } from '../rules/loader.js';
import { subscriptionLabel, subscriptionName, subscriptionRule } from '../rules/subscription.js';
import { formatProblem, type Rule, type RuleProblem } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import type { SubscriptionRow } from '../store/subscriptions.js';
import type { CliContext } from './context.js';

/** A stored subscription that is not in force because its rule no longer validates. */
export interface InvalidSubscription {
  id: number;
  label: string;
  message: string;
}

/** The rules in force and where each came from. */
export interface RuleSources {
  /** The rule files' rules, then the subscriptions' that are in force (not paused, valid). */
  rules: Rule[];
  /** Problems of the rule files (the daemon would refuse them). */
  fileProblems: RuleProblem[];
  files: string[];
  /** Every stored subscription, paused ones included. */
  subscriptions: SubscriptionRow[];
  invalid: InvalidSubscription[];
}

/**
 * Reads the rule files of `PIPEWATCH_RULES_DIR` and, with a store, its subscriptions, as
 * the daemon compiles them (`subscriptionRules`): paused ones and invalid ones left out.
 */
export async function loadRuleSources(
  ctx: CliContext,
  store: AsyncStore | undefined,
): Promise<RuleSources> {
  return withSubscriptions(loadRules(ctx.config.rulesDir, { cwd: ctx.io.cwd }), store);
}

/** The rule files' rules as loaded, and the subscriptions of `store` (none without one). */
export async function withSubscriptions(
  loaded: LoadedRules,
  store: AsyncStore | undefined,
): Promise<RuleSources> {
  const subscriptions = store ? await store.subscriptions.all() : [];
  const rules: Rule[] = [...loaded.rules];
  const invalid: InvalidSubscription[] = [];
  for (const row of subscriptions) {
    if (row.paused_at !== null) continue;
    const out = subscriptionRule(row);
    if ('kind' in out) rules.push(out);
    else invalid.push({ id: row.id, label: subscriptionLabel(row), message: out.message });
  }
  return { rules, fileProblems: loaded.problems, files: loaded.files, subscriptions, invalid };
}

/** `subscription 12 (slack:C0GAS by U0ALICE, 2026-11-23): notices.types: …; not in force`. */
export function invalidLine(s: InvalidSubscription): string {
  return `subscription ${s.id} (${s.label}): ${s.message}; it is not in force`;
}

/** Where a rule came from: `rules/gas.yaml:3:5`, or a subscription's label. */
export function sourceOf(rule: Rule): string {
  return rule.origin ? rule.origin.label : formatProblem({ ...rule.at, message: '' }).slice(0, -2);
}

/**
 * How rule names are shown: a subscription's with its label, `sub-12 (slack:C0GAS by
 * U0ALICE, 2026-11-23)`, since `sub-12` alone says nothing; a rule file's as written.
 * Names of subscriptions removed since are said to be so.
 */
export class RuleNames {
  private readonly labels = new Map<string, string>();

  constructor(subscriptions: readonly SubscriptionRow[]) {
    for (const s of subscriptions) this.labels.set(subscriptionName(s.id), subscriptionLabel(s));
  }

  /** The subscription label of `name`; undefined for a rule file's rule. */
  label(name: string): string | undefined {
    const label = this.labels.get(name);
    if (label !== undefined) return label;
    return /^sub-\d+$/.test(name) ? 'a subscription removed since' : undefined;
  }

  /** `sub-12 (slack:C0GAS by U0ALICE, 2026-11-23)`, or the name as it is. */
  show(name: string): string {
    const label = this.label(name);
    return label === undefined ? name : `${name} (${label})`;
  }

  /** A line that starts with `name:` (a verdict line) with the name shown as `show` does. */
  line(name: string, text: string): string {
    return text.startsWith(`${name}:`) ? `${this.show(name)}${text.slice(name.length)}` : text;
  }
}
