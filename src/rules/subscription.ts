/**
 * Subscriptions as rules: a stored subscription is a rule-file item, judged by the same
 * schema as a rule file's (so a subscription that was valid when made and is not any
 * more, after an upgrade, is reported instead of half-applied) and named `sub-<id>`.
 */
import { ruleSchema } from './schema.js';
import type { LocationRef, PipelineRef, Rule, RuleProblem, SourcePosition } from './types.js';

/** A subscription as stored (the store's rows have this shape). */
export interface SubscriptionRow {
  id: number;
  /** The rule-file item without `name`. */
  rule: Record<string, unknown>;
  target: string;
  source: string;
  channel: string | null;
  created_by: string | null;
  created_at: string;
  notice_id: number | null;
  paused_at: string | null;
}

/** `sub-12`. */
export function subscriptionName(id: number): string {
  return `sub-${id}`;
}

/** `slack:C0GAS by U0ALICE, 2026-11-23`: where a subscription came from, who made it, when. */
export function subscriptionLabel(
  row: Pick<SubscriptionRow, 'source' | 'channel' | 'target' | 'created_by' | 'created_at'>,
): string {
  const where = row.channel ?? (row.source === 'cli' ? 'cli' : row.target);
  const by = row.created_by ? ` by ${row.created_by}` : '';
  return `${where}${by}, ${row.created_at.slice(0, 10)}`;
}

/** Where a subscription's problems are said to be: `subscription 12:1:1`. */
function positionOf(id: number): SourcePosition {
  return { file: `subscription ${id}`, line: 1, col: 1 };
}

/** A stored subscription's rule, or the problem that keeps it from being one. */
export function subscriptionRule(row: SubscriptionRow): Rule | RuleProblem {
  const at = positionOf(row.id);
  const parsed = ruleSchema.safeParse({ ...row.rule, name: 'subscription' });
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const path = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return { ...at, message: `${path}${issue?.message ?? 'is not a valid rule'}` };
  }
  const body = parsed.data;
  const slugs =
    body.kind === 'capacity' ? (body.pipelines ?? []) : [...(body.filter.pipelines ?? [])];
  const pipelineRefs: PipelineRef[] = slugs.map((slug) => ({ slug, at }));
  const { capacity } = row.rule;
  const written =
    typeof capacity === 'object' && capacity !== null && 'locations' in capacity
      ? capacity.locations
      : undefined;
  const locationRefs: LocationRef[] =
    body.kind === 'capacity' && Array.isArray(written)
      ? written
          .filter((l): l is string => typeof l === 'string')
          .map((l) => ({ location: l.trim(), at }))
      : [];
  return {
    ...body,
    name: subscriptionName(row.id),
    at,
    ...(pipelineRefs.length > 0 ? { pipelineRefs } : {}),
    ...(locationRefs.length > 0 ? { locationRefs } : {}),
    origin: {
      subscription: row.id,
      label: subscriptionLabel(row),
      createdAt: row.created_at,
      ...(row.notice_id === null ? {} : { noticeId: row.notice_id }),
    },
  };
}

/** The rules of the subscriptions in force (not paused), and the problems of any that are not valid. */
export function subscriptionRules(
  rows: readonly SubscriptionRow[],
  /** Rules parsed before, by subscription id, kept up to date: a stored rule never changes. */
  cache?: Map<number, Rule | RuleProblem>,
): {
  rules: Rule[];
  problems: RuleProblem[];
} {
  const rules: Rule[] = [];
  const problems: RuleProblem[] = [];
  for (const row of rows) {
    if (row.paused_at !== null) continue;
    let out = cache?.get(row.id);
    if (!out) {
      out = subscriptionRule(row);
      cache?.set(row.id, out);
    }
    if ('kind' in out) rules.push(out);
    else problems.push(out);
  }
  return { rules, problems };
}
