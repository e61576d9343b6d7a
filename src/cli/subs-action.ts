/**
 * What `subs list`, `subs rm` and `subs export` do once they run, on the daemon's
 * database. Apart from their definitions, so `--help` loads none of it.
 */
import { toUtcIso } from '../lib/time.js';
import { subscriptionLabel, subscriptionName, subscriptionRule } from '../rules/subscription.js';
import { ruleSummary } from '../rules/summary.js';
import type { SubscriptionRow } from '../store/subscriptions.js';
import type { CliContext } from './context.js';
import { table, toJson } from './format.js';
import { shownTarget } from './silence-matchers.js';
import { withStore } from './store-command.js';
import { exportRuleFile } from './subs-format.js';

/** One subscription as `subs list` shows it. */
interface SubscriptionView {
  id: number;
  name: string;
  /** Null when its rule no longer validates (`problem` says why). */
  kind: 'notices' | 'deadlines' | 'capacity' | null;
  matches: string;
  target: string;
  /** `slack:C0GAS by U0ALICE, 2026-11-23`. */
  label: string;
  source: SubscriptionRow['source'];
  channel: string | null;
  created_by: string | null;
  created_at: string;
  notice_id: number | null;
  paused_at: string | null;
  paused_reason: string | null;
  problem: string | null;
  /** The stored rule-file item, without its name. */
  rule: Record<string, unknown>;
}

function view(row: SubscriptionRow): SubscriptionView {
  const rule = subscriptionRule(row);
  const valid = 'kind' in rule;
  return {
    id: row.id,
    name: subscriptionName(row.id),
    kind: valid ? rule.kind : null,
    matches: valid ? ruleSummary(rule) : `invalid: ${rule.message}`,
    target: shownTarget(row.target),
    label: subscriptionLabel(row),
    source: row.source,
    channel: row.channel,
    created_by: row.created_by,
    created_at: row.created_at,
    notice_id: row.notice_id,
    paused_at: row.paused_at,
    paused_reason: row.paused_reason,
    problem: valid ? null : rule.message,
    rule: row.rule,
  };
}

/** `paused since 2026-11-24T10:00:00Z (channel_not_found)`, or `active`. */
function stateOf(v: SubscriptionView): string {
  if (v.paused_at === null) return v.problem ? 'not in force (invalid)' : 'active';
  return `paused since ${v.paused_at}${v.paused_reason ? ` (${v.paused_reason})` : ''}`;
}

/** `subs list`: every subscription, or their JSON. */
export async function listSubscriptions(ctx: CliContext, opts: { json?: boolean }): Promise<void> {
  await withStore(ctx, async (store) => {
    const views = (await store.subscriptions.all()).map(view);
    if (opts.json) {
      ctx.out(toJson(views));
      return;
    }
    if (views.length === 0) {
      ctx.out('no subscriptions');
      return;
    }
    ctx.out(
      table(
        ['id', 'kind', 'matches', 'target', 'from', 'state'],
        views.map((v) => [String(v.id), v.kind ?? '-', v.matches, v.target, v.label, stateOf(v)]),
        ['right'],
      ),
    );
  });
}

/** `subs rm`: removes one, saying what it matched and where it sent. */
export async function removeSubscription(ctx: CliContext, id: number): Promise<void> {
  await withStore(ctx, async (store) => {
    const row = await store.subscriptions.get(id);
    if (!row || !(await store.subscriptions.remove(id))) {
      ctx.err(`pipewatch: no subscription ${id} (see 'pipewatch subs list')`);
      ctx.exitCode = 1;
      return;
    }
    const v = view(row);
    ctx.out(`removed subscription ${id}: ${v.matches} → ${v.target} (${v.label})`);
  });
}

/** `subs export`: every subscription as one rule file. */
export async function exportSubscriptions(ctx: CliContext): Promise<void> {
  await withStore(ctx, async (store) => {
    ctx.out(exportRuleFile(await store.subscriptions.all(), toUtcIso(ctx.clock.now())).trimEnd());
  });
}
