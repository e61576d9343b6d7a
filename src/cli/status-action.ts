/**
 * What `pipewatch status` does once it runs: reads the database and the rule files and
 * prints the report. Apart from the command's definition, so `--help` loads none of it.
 */
import { type DeliveryBacklog, deliveryBacklog, stuckTargets } from '../delivery/backlog.js';
import { capacityPlan } from '../ingest/capacity-plan.js';
import {
  type CapacityPlanReport,
  feedSchedule,
  planReport,
  type SubscriptionsStatus,
  statusReport,
} from '../ingest/feeds.js';
import { describeNoticeSchedule } from '../ingest/notice-schedule.js';
import { formatDuration } from '../lib/duration.js';
import { counted } from '../lib/words.js';
import type { AsyncStore } from '../store/async-store.js';
import { listReplicas, REPLICAS_SEEN_MS, type Replica } from '../store/postgres/replicas.js';
import type { CliContext } from './context.js';
import { table, toJson } from './format.js';
import { openExistingStore } from './open-store.js';
import { loadRuleSources, RuleNames } from './rule-sources.js';

/** The stuck targets, each with its oldest undelivered alert's age and the last error. */
function printStuck(ctx: CliContext, backlog: DeliveryBacklog): void {
  const stuck = stuckTargets(backlog);
  if (stuck.length === 0) return;
  const limit = formatDuration(backlog.stuck_after_seconds * 1000);
  const n = counted(stuck.length, 'target');
  ctx.out(`delivery stuck: ${n} with an alert undelivered for more than ${limit}`);
  for (const t of stuck) {
    const age = formatDuration(t.oldest_pending_age_seconds * 1000);
    const flight = t.in_flight > 0 ? `, ${t.in_flight} in flight` : '';
    const error = t.last_error ? `; last error: ${t.last_error}` : '';
    ctx.out(
      `  ${t.target}: oldest undelivered alert ${age} old (due ${t.oldest_pending_at}), ${t.pending} pending${flight}${error}`,
    );
  }
}

/**
 * The plan the daemon would follow with the rule files as they are and the subscriptions
 * in force; null when the rule files are invalid.
 */
async function currentPlan(ctx: CliContext, store: AsyncStore): Promise<CapacityPlanReport | null> {
  const { config } = ctx;
  const sources = await loadRuleSources(ctx, store);
  if (sources.fileProblems.length > 0) return null;
  const tracked = (await store.pipelines.all()).map((p) => p.slug);
  const plan = capacityPlan(sources.rules, config.capacityPipelines, tracked);
  return planReport(store, plan, config.capacityIntervalMs);
}

/** `subscriptions: 4 (1 paused), silences in force: 2`, and each paused channel with its reason. */
function printSubscriptions(ctx: CliContext, report: SubscriptionsStatus): void {
  const { subscriptions: s, silences } = report;
  const paused = s.paused > 0 ? ` (${s.paused} paused)` : '';
  ctx.out(`subscriptions: ${s.total}${paused}, silences in force: ${silences.in_force}`);
  for (const c of s.paused_channels) {
    const n = counted(c.subscriptions, 'subscription');
    ctx.out(
      `  paused: ${c.channel}, ${n}, since ${c.paused_at}${c.reason ? ` (${c.reason})` : ''}`,
    );
  }
}

function printPlan(ctx: CliContext, plan: CapacityPlanReport | null, names: RuleNames): void {
  if (plan === null) {
    ctx.out("capacity plan: unknown, the rule files are invalid (see 'pipewatch rules validate')");
    return;
  }
  const n = plan.pipelines.length;
  ctx.out(
    n === 0
      ? 'capacity plan: nothing to fetch (no capacity rule, PIPEWATCH_CAPACITY_PIPELINES empty)'
      : `capacity plan: ${counted(n, 'pipeline')}, about ${counted(plan.requests_per_hour, 'request')} an hour`,
  );
  for (const p of plan.pipelines) {
    const by = [...new Set(p.requested_by.map((r) => names.show(r.by)))].join('; ');
    const missing = p.capacity_missing_at
      ? `; the API had no capacity data for it at ${p.capacity_missing_at}`
      : '';
    ctx.out(
      `  ${p.slug}: ${p.cycles.join(', ')} (${by}${p.implicit ? ', every tracked pipeline' : ''}${missing})`,
    );
  }
  for (const rule of plan.waiting_for_pipeline_list)
    ctx.out(
      `  ${names.show(rule)}: names no pipeline; every tracked one once the pipeline list is read`,
    );
}

/**
 * The replica leading now: one whose last heartbeat as leader is within the lease (a
 * leader beats at every renewal, a third of it); null when none is.
 */
function liveLeader(replicas: readonly Replica[], leaseMs: number): Replica | null {
  return replicas.find((r) => r.role === 'leader' && r.silentMs <= leaseMs) ?? null;
}

function replicaJson(r: Replica) {
  return {
    id: r.id,
    host: r.host,
    pid: r.pid,
    role: r.role,
    started_at: r.startedAt.toISOString(),
    last_seen_at: r.lastSeenAt.toISOString(),
    silent_seconds: Math.round(r.silentMs / 1000),
  };
}

/** The replicas seen in the last 5 minutes, and a line when none leads. */
function printReplicas(
  ctx: CliContext,
  replicas: readonly Replica[],
  leader: Replica | null,
  leaseMs: number,
): void {
  const ago = (ms: number) => `${formatDuration(Math.round(ms / 1000) * 1000)} ago`;
  ctx.out(`\nreplicas seen in the last ${formatDuration(REPLICAS_SEEN_MS)}:`);
  if (replicas.length > 0)
    ctx.out(
      table(
        ['replica', 'host', 'pid', 'role', 'last heartbeat', 'started'],
        replicas.map((r) => [
          r.id,
          r.host,
          String(r.pid),
          r.role,
          ago(r.silentMs),
          r.startedAt.toISOString().slice(0, 19).concat('Z'),
        ]),
      ),
    );
  else ctx.out('  none: no pipewatch run is using this database');
  if (!leader)
    ctx.out(
      `no replica has led in the last ${formatDuration(leaseMs)}: nothing polls, decides or sends`,
    );
}

/** Prints the status report, or its JSON, and sets the exit status from its health. */
export async function showStatus(ctx: CliContext, opts: { json?: boolean }): Promise<void> {
  const { config } = ctx;
  const opened = await openExistingStore(ctx);
  if (!opened) return;
  const { store } = opened;
  try {
    const now = ctx.clock.now();
    const feeds = await statusReport(store, now, {
      feeds: feedSchedule(config),
      capacityPlan: await currentPlan(ctx, store),
    });
    const backlog = await deliveryBacklog(store, now, config.delivery.stuckAfterMs);
    const stuck = stuckTargets(backlog);
    const replicas = opened.pool ? await listReplicas(opened.pool) : undefined;
    const leading = replicas && liveLeader(replicas, config.leaderLeaseMs);
    const report = {
      ...feeds,
      healthy: feeds.healthy && stuck.length === 0 && leading !== null,
      outbox: await store.outbox.summary(),
      delivery: { stuck_after_seconds: backlog.stuck_after_seconds, stuck },
      ...(replicas ? { replicas: replicas.map(replicaJson) } : {}),
    };
    if (opts.json) {
      ctx.out(toJson(report));
      return;
    }
    const rows = report.feeds.map((f) => [
      f.feed,
      f.healthy === false ? 'UNHEALTHY' : 'ok',
      f.last_attempt_at ?? 'never',
      f.last_success_at ?? 'never',
      String(f.consecutive_failures),
      f.last_error ?? '',
    ]);
    ctx.out(
      table(['feed', 'health', 'last attempt', 'last success', 'failures', 'last error'], rows),
    );
    if (replicas) printReplicas(ctx, replicas, leading ?? null, config.leaderLeaseMs);
    const c = report.counts;
    ctx.out(
      `\nstored: ${counted(c.pipelines, 'pipeline')}, ${counted(c.notices, 'notice')}, ${counted(c.capacity_cycles, 'capacity cycle')}`,
    );
    if (report.notice_schedule) {
      ctx.out(`notices: ${describeNoticeSchedule(report.notice_schedule)}`);
    }
    printPlan(ctx, report.capacity_plan, new RuleNames(await store.subscriptions.all()));
    printSubscriptions(ctx, report);
    const o = report.outbox;
    const oldest = o.oldest_pending_at
      ? ` (oldest ${formatDuration(Math.max(0, Math.round((now.getTime() - Date.parse(o.oldest_pending_at)) / 1000) * 1000))} ago)`
      : '';
    ctx.out(`outbox: ${o.pending} pending${oldest}, ${o.sent} sent, ${o.dead} dead`);
    for (const d of o.dead_reasons) {
      const kind = d.code ?? 'no kind recorded';
      const what =
        d.reasons > 1
          ? `${kind}, ${d.reasons} reasons, the latest ${d.reason}`
          : `${d.reason} [${kind}]`;
      ctx.out(`  dead: ${d.count} × ${what} (last decided ${d.last_at})`);
    }
    printStuck(ctx, backlog);
    for (const f of report.feeds) if (f.reason) ctx.out(`${f.feed}: ${f.reason}`);
    ctx.exitCode = report.healthy ? 0 : 1;
  } finally {
    await opened.close();
  }
}
